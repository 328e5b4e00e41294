// Two words no ticket holds together (private.search_words_apart, supabase/schemas/50_inbox.sql;
// docs/decisions/122-words-apart.md): the store's invariant (no ticket's search holds both words of a row) after
// keeping words on seeded tickets, after writes that make two kept words meet, and under writes that race the
// keeping of words; a search of such words answers as plain SQL does.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, PEOPLE, backendPid, openTicket, waitingFor } from '../support/db.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

describe('words apart', () => {
  const db = dbFixture();

  beforeAll(async () => {
    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/seed-bulk.ts', '--tickets', '3000', '--db-url', db.stack.dbUrl],
      { cwd: process.cwd() },
    );
    await db.sql('analyze public.tickets');
  }, 120_000);

  /** A lexeme quoted for a tsquery ('' and \\ escaped), as SQL. */
  const lexeme = (x: string) => `'''' || replace(replace(${x}, '\\', '\\\\'), '''', '''''') || ''''`;
  /** Two lexemes as a tsquery that matches a search holding both. */
  const both = (a: string, b: string) => `(${lexeme(a)} || ' & ' || ${lexeme(b)})::tsquery`;
  /**
   * The rows of the store that break its invariant: some ticket's search holds both words, or the row isn't there both
   * ways round. None, always.
   */
  const broken = async () =>
    (
      await db.sql(`select p.a, p.b from private.search_words_apart p
                     where exists (select from public.tickets t where t.search @@ ${both('p.a', 'p.b')})
                        or not exists (select from private.search_words_apart q where q.a = p.b and q.b = p.a)`)
    ).rows;
  const apart = async (a: string, b: string) =>
    (await db.sql('select from private.search_words_apart where a = $1 and b = $2', [a, b])).rowCount === 1;

  /** A writer's and a keeper's sessions for `race`, closed after it. */
  async function sessions(race: (writer: pg.Client, keeper: pg.Client) => Promise<void>) {
    const writer = await session();
    const keeper = await session();
    try {
      await race(writer, keeper);
    } finally {
      await writer.end();
      await keeper.end();
    }
  }

  async function session() {
    const client = new pg.Client({ connectionString: db.stack.dbUrl });
    await client.connect();
    return client;
  }

  /** public.inbox as acme's agent: the page's ids and the counts. */
  async function inbox(view: string, query: string) {
    const client = await session();
    try {
      await client.query('begin');
      await client.query(`select set_config('request.jwt.claims', $1, true)`, [
        JSON.stringify({ sub: PEOPLE.acmeAgent.id, role: 'authenticated' }),
      ]);
      await client.query('set local role authenticated');
      const { rows } = await client.query(`select public.inbox('acme', p_view => $1, p_query => $2) as page`, [
        view,
        query,
      ]);
      const page = rows[0].page;
      return { ids: page.tickets.map((t: { id: string }) => t.id), counts: page.search_counts };
    } finally {
      await client.query('rollback');
      await client.end();
    }
  }

  /** The view's matches by plain SQL, newest first (db-search.test.ts's), the first 25. */
  async function expected(view: string, query: string) {
    const { rows } = await db.sql(
      `select id from tickets t where workspace_id = $1 and (${view === 'open' ? `status in ('new', 'open')` : 'true'})
          and (search @@ private.inbox_query($2)
               or id in (select ticket_id from messages where kind = 'note' and to_tsvector('english', body) @@ private.inbox_query($2)))
        order by last_message_at desc, id desc limit 25`,
      [ACME, query],
    );
    return rows.map((r) => r.id as string);
  }

  it("keeps the common words' pairs no ticket holds together, and only those; a search of them answers as plain SQL", async () => {
    const { rows } = await db.sql('call private.keep_common_search_pairs()');
    expect(rows[0].added).toBeGreaterThan(10);
    // The seed's "tracking" and "number" are in different customers' texts.
    expect(await apart('track', 'number')).toBe(true);
    expect(await broken()).toEqual([]);
    // Every other pair of kept words meets in some ticket (a pair missing costs only the GIN look-up, but the
    // keeping reads each word's tickets whole).
    const { rows: missing } = await db.sql(`select x.word as a, y.word as b
      from private.search_pair_words x join private.search_pair_words y on x.word < y.word
     where not exists (select from private.search_words_apart p where p.a = x.word and p.b = y.word)
       and not exists (select from public.tickets t where t.search @@ ${both('x.word', 'y.word')})`);
    expect(missing).toEqual([]);
    // Only an AND of words (or of a last group, a prefix's words) two groups of which are apart word by word.
    const shapes: [string, boolean][] = [
      [`'track' & 'number'`, true],
      [`'number' & 'track'`, true],
      [`'refund' & 'track' & 'number'`, true],
      [`'track' & ( 'number' | 'zebra' )`, false], // zebra is no kept word
      [`'track' <-> 'number'`, false],
      [`!'refund' & 'track' & 'number'`, false],
      [`'track' & 'number':*`, false],
      [`'track' | 'number'`, false],
    ];
    for (const [query, answer] of shapes) {
      const { rows: said } = await db.sql('select private.inbox_words_apart($1::tsquery) as apart', [query]);
      expect(said[0].apart, query).toBe(answer);
    }
    // Kept again: nothing new.
    expect((await db.sql('call private.keep_common_search_pairs()')).rows[0].added).toBe(0);

    // No ticket's search has both words, but an internal note does: that ticket, in every view it is in.
    const note = (
      await db.sql(
        `insert into messages (ticket_id, author_id, kind, body)
         select id, $2, 'note', 'Ask for the tracking number again' from tickets
          where workspace_id = $1 and status = 'open' order by last_message_at desc limit 1 offset 30
         returning ticket_id`,
        [ACME, PEOPLE.acmeAgent.id],
      )
    ).rows[0].ticket_id as string;
    for (const view of ['all', 'open']) {
      const page = await inbox(view, 'tracking number');
      expect(page.ids, view).toEqual([note]);
      expect(page.ids).toEqual(await expected(view, 'tracking number'));
      expect(page.counts.all, view).toBe(1);
      expect(page.counts.capped, view).toBe(false);
    }
  });

  it('forgets a pair when a new ticket or a reply makes its words meet, in the same transaction', async () => {
    await db.sql('call private.keep_common_search_pairs()');
    expect(await apart('track', 'number')).toBe(true);
    const created = await openTicket(db, 'acmeCustomer', 'Wrong tracking number');
    expect(await apart('track', 'number')).toBe(false);
    expect(await broken()).toEqual([]);
    const { ids } = await inbox('all', 'tracking number');
    expect(ids).toEqual(await expected('all', 'tracking number'));
    expect(ids).toContain(created.id);

    // A reply: a ticket that holds one of two kept words apart gains the other (as a public reply adds its words).
    const { rows } = await db.sql('select a, b from private.search_words_apart order by a, b limit 1');
    const [{ a, b }] = rows;
    const replied = await db.sql(
      `update tickets set search = search || array_to_tsvector(array[$2]::text[])
        where id = (select id from tickets where workspace_id = $1 and search @@ (${lexeme('$3')})::tsquery limit 1)`,
      [ACME, b, a],
    );
    expect(replied.rowCount).toBe(1);
    expect(await apart(a, b)).toBe(false);
    expect(await broken()).toEqual([]);
  });

  it('keeps words only from committed tickets: a write in flight is waited for, then counted', () =>
    sessions(async (writer, keeper) => {
      await writer.query('begin');
      await writer.query(
        `update tickets set search = search || array_to_tsvector('{quokka,narwhal}'::text[])
        where id = (select id from tickets where workspace_id = $1 order by number limit 1 offset 1)`,
        [ACME],
      );
      const keeping = keeper.query(`select private.keep_search_pairs('{quokka,narwhal}')`);
      const writerPid = await backendPid(writer);
      await waitFor('the keeping to wait for the writer', async () => (await waitingFor(db, writerPid)).length > 0);
      await writer.query('commit');
      await keeping;
      expect(await apart('quokka', 'narwhal')).toBe(false);
      expect(await broken()).toEqual([]);
    }));

  it('holds writes off while words are kept: a write waits, then forgets the pair it makes meet', () =>
    sessions(async (writer, keeper) => {
      await keeper.query('begin');
      await keeper.query(`select private.keep_search_pairs('{walrus,puffin}')`);
      const writing = writer.query(
        `update tickets set search = search || array_to_tsvector('{walrus,puffin}'::text[])
        where id = (select id from tickets where workspace_id = $1 order by number limit 1 offset 2)`,
        [ACME],
      );
      const keeperPid = await backendPid(keeper);
      await waitFor('the write to wait for the keeping', async () => (await waitingFor(db, keeperPid)).length > 0);
      await keeper.query('commit');
      await writing;
      expect(await apart('walrus', 'puffin')).toBe(false);
      expect(await broken()).toEqual([]);
      // A ticket with one of them only: the pair stays apart.
      await keeper.query(`select private.keep_search_pairs('{walrus,puffin,gannet}')`);
      expect(await apart('gannet', 'walrus')).toBe(true);
    }));
});
