// Search at any scale (public.inbox's three steps, supabase/schemas/50_inbox.sql), checked against plain
// SQL for each role on a bulk-seeded workspace, with pages so small that each step answers some query; an email address finds its requester's tickets, a number names its ticket;
// the statement timeout gives an empty page with the stopped statement's plan instead of an error.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, PEOPLE, openTicket, type Person } from '../support/db.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

interface Page {
  tickets: { id: string }[];
  older: { at: string; id: string } | null;
  ticket_number: number | null;
  search_timeout: string | null;
  search_counts: (Record<string, number> & { capped: boolean }) | null;
}

const VIEW_SQL: Record<string, string> = {
  unassigned: `assignee_id is null and status in ('new', 'open')`,
  open: `status in ('new', 'open')`,
  all: 'true',
};

describe('search', () => {
  const db = dbFixture();
  let bulkRequester: { id: string; email: string };

  beforeAll(async () => {
    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/seed-bulk.ts', '--tickets', '3000', '--db-url', db.stack.dbUrl],
      { cwd: process.cwd() },
    );
    bulkRequester = (await db.sql(`select id, email from auth.users where email = 'bulk7.acme@example.test'`)).rows[0];
  }, 120_000);

  /** public.inbox as `person` in a plain SQL session, with settings (statement_timeout). */
  async function inbox(
    person: Person,
    args: Record<string, string | string[] | null>,
    settings: Record<string, string> = {},
  ) {
    const client = new pg.Client({ connectionString: db.stack.dbUrl });
    await client.connect();
    try {
      await client.query('begin');
      for (const [k, v] of Object.entries(settings)) await client.query('select set_config($1, $2, true)', [k, v]);
      await client.query(`select set_config('request.jwt.claims', $1, true)`, [
        JSON.stringify({ sub: PEOPLE[person].id, role: 'authenticated' }),
      ]);
      await client.query('set local role authenticated');
      const names = Object.keys(args);
      const { rows } = await client.query(
        `select public.inbox('acme', ${names.map((n, i) => `${n} => $${i + 1}`).join(', ')}) as page`,
        Object.values(args),
      );
      return rows[0].page as Page;
    } finally {
      await client.query('rollback');
      await client.end();
    }
  }

  /**
   * The view's matches, newest activity first, by brute force: subject and replies, notes, the requester.
   * The words as the inbox reads them (private.inbox_query: websearch, the last word also as a prefix;
   * its own cases are in db-inbox-views.test.ts).
   */
  async function expected(view: string, query: string, requester: string | null = null) {
    const { rows } = await db.sql(
      `select id from tickets t where workspace_id = $1 and ${VIEW_SQL[view]}
          and (search @@ private.inbox_query($2)
               or id in (select ticket_id from messages where kind = 'note' and to_tsvector('english', body) @@ private.inbox_query($2))
               or requester_id = $3)
        order by last_message_at desc, id desc`,
      [ACME, query, requester],
    );
    return rows.map((r) => r.id as string);
  }

  /** `words` added to the search text of acme's tickets `where` (SQL on tickets). */
  const addWords = (words: string, where: string) =>
    db.sql(`update tickets set search = search || to_tsvector('english', $2) where workspace_id = $1 and ${where}`, [
      ACME,
      words,
    ]);

  /** The view's pages for a search, up to `deepest` of them, each checked against plain SQL's; its matches. */
  async function pagesAsPlainSql(view: string, query: string, limit: number, deepest = Number.POSITIVE_INFINITY) {
    const want = await expected(view, query);
    const label = `page of ${limit}, ${view}: ${query}`;
    let page = await inbox('acmeAgent', { p_view: view, p_query: query, p_limit: String(limit) });
    for (let n = 0; ; n++) {
      expect(
        page.tickets.map((t) => t.id),
        `${label}, page ${n + 1}`,
      ).toEqual(want.slice(n * limit, (n + 1) * limit));
      if (!page.older || n + 1 === deepest) break;
      page = await inbox('acmeAgent', {
        p_view: view,
        p_query: query,
        p_limit: String(limit),
        p_after_at: page.older.at,
        p_after_id: page.older.id,
      });
    }
    return want;
  }

  it('finds what plain SQL finds, newest first, page after page, for agents and admins, at every step', async () => {
    // The window, cap and notes set scale with the page size (40, 400 and 40 for a page of one). Every
    // ticket with "warranty" (about 500, "lisbon" about 250 of them) made older than the rest: for a page
    // of one, "lisbon" is in no window but under the cap (the GIN matches sorted), "warranty" over it
    // (the view in order); "warehouse" is in more notes than 40 (each ticket's looked up), fewer than 1 000.
    await db.sql(
      `update tickets set last_message_at = last_message_at - interval '2 years'
        where workspace_id = $1 and search @@ websearch_to_tsquery('english', 'warranty')`,
      [ACME],
    );
    const queries: [string, string][] = [
      ['all', 'refund'],
      ['all', 'lisbon'],
      ['all', 'warranty'],
      ['all', 'warehouse'], // in notes only
      ['open', 'goodwill'],
      ['all', '"duplicate charge"'],
      ['unassigned', 'ceramic -photos'],
      ['all', 'zebra'],
    ];
    for (const limit of [25, 1, 3]) {
      for (const person of ['acmeAgent', 'acmeAdmin'] as const) {
        for (const [view, query] of queries) {
          const want = await expected(view, query);
          const label = `page of ${limit}, ${person}, ${view}: ${query}`;
          let page = await inbox(person, { p_view: view, p_query: query, p_limit: String(limit) });
          // Up to four pages deep.
          for (let n = 0; ; n++) {
            expect(
              page.tickets.map((t) => t.id),
              `${label}, page ${n + 1}`,
            ).toEqual(want.slice(n * limit, (n + 1) * limit));
            expect(page.search_timeout, label).toBeNull();
            if (!page.older || n === 3) break;
            page = await inbox(person, {
              p_view: view,
              p_query: query,
              p_limit: String(limit),
              p_after_at: page.older.at,
              p_after_id: page.older.id,
            });
          }
          if (!page.older) expect(want.length, label).toBeLessThanOrEqual(4 * limit);
        }
      }
    }
  });

  it("finds a requester's tickets by their email address, in any case", async () => {
    const want = await expected('all', bulkRequester.email, bulkRequester.id);
    expect(want.length).toBeGreaterThan(5);
    for (const limit of [25, 1]) {
      const page = await inbox('acmeAgent', {
        p_view: 'all',
        p_query: bulkRequester.email.toUpperCase(),
        p_limit: String(limit),
      });
      expect(page.tickets.map((t) => t.id)).toEqual(want.slice(0, limit));
    }
  });

  it('finds a word few tickets have from the index, skipping the window: the same pages as plain SQL', async () => {
    // "quokka" in the search text of 3 tickets of 3 000 (ANALYZE keeps no word that rare among the most
    // common ones): the oldest ticket and 2 others, outside a small page's window; "lisbon" is common.
    await db.sql(
      `update tickets set search = search || to_tsvector('english', 'A quokka ate the parcel.')
        where workspace_id = $1 and number in (select number from tickets where workspace_id = $1 order by number desc limit 2 offset 100)
           or id in (select id from tickets where workspace_id = $1 order by last_message_at limit 1)`,
      [ACME],
    );
    await db.sql('analyze tickets');
    const rare = async (q: string) =>
      (await db.sql('select (private.inbox_query_stats(private.inbox_query($1))).rare as rare', [q])).rows[0]
        .rare as boolean;
    expect(await rare('quokka')).toBe(true);
    expect(await rare(bulkRequester.email)).toBe(true);
    expect(await rare('lisbon')).toBe(false);
    expect(await rare('quokka lisbon')).toBe(false);
    for (const limit of [25, 1, 3]) {
      for (const [view, query] of [
        ['all', 'quokka'],
        ['open', 'quokka'],
        ['all', 'quokka -zebra'],
      ] as const) {
        const want = await pagesAsPlainSql(view, query, limit);
        if (view === 'all') expect(want.length, `page of ${limit}, ${view}: ${query}`).toBeGreaterThanOrEqual(2);
      }
    }
  });

  it("counts a rare word's matches in every view as plain SQL does, and past 100 as the newest ones", async () => {
    // A rare word's counts come from the indexes first (50_inbox.sql); past the cap the walk along the newest
    // tickets decides them, as for any word. Expected: each view's share of the matches (all of them, or the
    // newest 101: a search's counts stop at 100, docs/decisions/092-search-count-cap.md), outside Spam and Trash.
    const want = async (newest: number | null) =>
      (
        await db.sql(
          `select count(*) filter (where assignee_id is null and status in ('new', 'open') and snoozed_until is null)::int as unassigned,
                  count(*) filter (where status in ('new', 'open') and snoozed_until is null)::int as open,
                  count(*) filter (where status = 'pending' and snoozed_until is null)::int as pending,
                  count(*) filter (where snoozed_until is not null)::int as snoozed,
                  count(*) filter (where status = 'solved')::int as solved, count(*)::int as all
             from (select * from tickets where workspace_id = $1 and spam_at is null and trashed_at is null
                      and search @@ private.inbox_query('wombat') order by last_message_at desc, id desc limit $2) t`,
          [ACME, newest],
        )
      ).rows[0];
    const rare = async () =>
      (await db.sql(`select (private.inbox_query_stats(private.inbox_query('wombat'))).rare as rare`)).rows[0]
        .rare as boolean;
    const counts = async () => (await inbox('acmeAgent', { p_view: 'all', p_query: 'wombat' })).search_counts;
    await db.sql(
      `update tickets set search = search || to_tsvector('english', 'A wombat at the depot.')
        where workspace_id = $1 and number in (select number from tickets where workspace_id = $1 order by number limit 3 offset 200)`,
      [ACME],
    );
    await db.sql('analyze tickets');
    expect(await rare()).toBe(true);
    const few = await want(null);
    expect(few.all).toBe(3);
    expect(await counts()).toMatchObject({ ...few, capped: false });
    // The newest 150 tickets too, the statistics not yet told (no autovacuum meanwhile): still rare to
    // them, now past the cap.
    await db.sql('alter table tickets set (autovacuum_enabled = off)');
    try {
      await db.sql(
        `update tickets set search = search || to_tsvector('english', 'A wombat at the depot.')
          where id in (select id from tickets where workspace_id = $1 order by last_message_at desc, id desc limit 150)`,
        [ACME],
      );
      expect(await rare()).toBe(true);
      const many = await want(101);
      expect(many.all).toBe(101);
      expect(await counts()).toMatchObject({ ...many, capped: true });
    } finally {
      await db.sql('alter table tickets reset (autovacuum_enabled)');
    }
  });

  it('counts two common words found together in few tickets as their newest 101 matches, and exactly when all are old', async () => {
    // Each word on a third of the tickets, both on one in 14: too few of the newest for private.inbox_newest_matches'
    // walk, so the tabs' counts walk the newest 40 windows (private.inbox_words_newest) and, past the cap, say each
    // view's share of the newest 101 matches (docs/decisions/099-several-common-words.md). Then both together only on
    // the 30 oldest tickets and a note on the newest: step 2 reads every match, and All's first page counts them
    // from it; every view exact (as Open's, counted through the indexes), the pages as plain SQL's.
    const [a, b] = ['kiwi', 'mango'].map(
      (w) =>
        `${w}${randomUUID()
          .replace(/[^a-f]/g, '')
          .slice(0, 6)}`,
    );
    const query = `${a} ${b}`;
    const want = async (newest: number | null) =>
      (
        await db.sql(
          `select count(*) filter (where assignee_id is null and status in ('new', 'open') and snoozed_until is null)::int as unassigned,
                  count(*) filter (where status in ('new', 'open') and snoozed_until is null)::int as open,
                  count(*) filter (where status = 'pending' and snoozed_until is null)::int as pending,
                  count(*) filter (where status = 'solved')::int as solved, count(*)::int as all
             from (select * from tickets t where workspace_id = $1 and spam_at is null and trashed_at is null
                      and (search @@ private.inbox_query($2)
                           or id in (select ticket_id from messages where kind = 'note' and to_tsvector('english', body) @@ private.inbox_query($2)))
                    order by last_message_at desc, id desc limit $3) t`,
          [ACME, query, newest],
        )
      ).rows[0];
    const counts = async (view: string) => (await inbox('acmeAgent', { p_view: view, p_query: query })).search_counts;
    await addWords(a, 'number % 3 = 0 or number % 14 = 0');
    await addWords(b, 'number % 3 = 1 or number % 14 = 0');
    await db.sql('analyze tickets');
    expect(
      (await db.sql(`select (private.inbox_query_stats(private.inbox_query($1))).rare as rare`, [query])).rows[0].rare,
    ).toBe(false);
    const newest = await want(101);
    expect(newest.all).toBe(101);
    expect(await counts('all')).toMatchObject({ ...newest, capped: true });
    await pagesAsPlainSql('all', query, 25, 2);

    // Both words now only on the 30 oldest tickets (no window reaches them) and in a note on the newest; the statistics
    // not told (still common to them: no autovacuum meanwhile).
    await db.sql('alter table tickets set (autovacuum_enabled = off)');
    try {
      await db.sql(
        `update tickets set search = ts_delete(search, tsvector_to_array(to_tsvector('english', $2))) where workspace_id = $1`,
        [ACME, b],
      );
      await db.sql(
        `update tickets set search = search || to_tsvector('english', $2)
        where id in (select id from tickets where workspace_id = $1 order by last_message_at, id limit 30)`,
        [ACME, query],
      );
      await db.sql(
        `insert into messages (ticket_id, author_id, kind, body)
       select id, $2, 'note', 'Ask about ' || $3 || '.' from tickets
        where workspace_id = $1 and spam_at is null and trashed_at is null order by last_message_at desc, id desc limit 1`,
        [ACME, PEOPLE.acmeAgent.id, query],
      );
      const few = await want(null);
      expect(few.all).toBe(31);
      expect(
        (await db.sql(`select (private.inbox_query_stats(private.inbox_query($1))).rare as rare`, [query])).rows[0]
          .rare,
      ).toBe(false);
      for (const view of ['all', 'open']) expect(await counts(view), view).toMatchObject({ ...few, capped: false });
      for (const view of ['all', 'open']) for (const limit of [1, 25]) await pagesAsPlainSql(view, query, limit, 3);
    } finally {
      await db.sql('alter table tickets reset (autovacuum_enabled)');
    }
  });

  it('lists common words none of the newest tickets have together from the indexes, and counts none matched as 0', async () => {
    // Two common words (each on a third of the tickets) together only on the 150th to 399th newest: none of the newest
    // 100 (a page of 25's probe) has both, so the page skips step 1's window for the GIN indexes
    // (docs/decisions/105-search-cost-at-a-million.md): the pages as plain SQL's, the counts the first 101 matches', no
    // view above its true count. Then two that no ticket has together: an empty page, every count 0.
    const [a, b, c, d] = ['fig', 'lime', 'plum', 'pear'].map(
      (w) =>
        `${w}${randomUUID()
          .replace(/[^a-f]/g, '')
          .slice(0, 6)}`,
    );
    const query = `${a} ${b}`;
    await addWords(a, 'number % 3 = 0');
    await addWords(b, 'number % 3 = 1');
    await addWords(c, 'number % 3 = 2');
    await addWords(d, 'number % 3 = 0');
    await addWords(
      query,
      `id in (select id from tickets where workspace_id = '${ACME}' order by last_message_at desc, id desc offset 149 limit 250)`,
    );
    await db.sql('analyze tickets');
    for (const q of [query, `${d} ${c}`])
      expect(
        (await db.sql(`select (private.inbox_query_stats(private.inbox_query($1))).rare as rare`, [q])).rows[0].rare,
      ).toBe(false);
    for (const view of ['all', 'open']) for (const limit of [1, 25]) await pagesAsPlainSql(view, query, limit, 3);
    const truly = (
      await db.sql(
        `select count(*) filter (where assignee_id is null and status in ('new', 'open') and snoozed_until is null)::int as unassigned,
                count(*) filter (where status in ('new', 'open') and snoozed_until is null)::int as open,
                count(*) filter (where status = 'pending' and snoozed_until is null)::int as pending,
                count(*) filter (where status = 'solved')::int as solved, count(*)::int as all
           from tickets where workspace_id = $1 and search @@ private.inbox_query($2)`,
        [ACME, query],
      )
    ).rows[0] as Record<string, number>;
    expect(truly.all).toBe(250);
    const counts = (await inbox('acmeAgent', { p_view: 'all', p_query: query })).search_counts!;
    expect(counts).toMatchObject({ all: 101, capped: true });
    for (const view of ['unassigned', 'open', 'pending', 'solved'])
      expect(counts[view], view).toBeLessThanOrEqual(truly[view]!);

    for (const view of ['all', 'open']) {
      const none = await inbox('acmeAgent', { p_view: view, p_query: `${d} ${c}` });
      expect(none.tickets, view).toEqual([]);
      expect(none.search_counts, view).toEqual({
        unassigned: 0,
        mine: 0,
        open: 0,
        pending: 0,
        snoozed: 0,
        solved: 0,
        all: 0,
        mentions: 0,
        capped: false,
      });
    }
  });

  it("counts a note word's tickets exactly to 100 notes; past them the counts are lower bounds, the pages whole", async () => {
    // The counts test the tickets of the first 100 matching notes (docs/decisions/092-search-count-cap.md);
    // the page's own selection still finds every one. One note each on the oldest tickets.
    const word = `kooka${randomUUID()
      .replace(/[^a-f]/g, '')
      .slice(0, 8)}`;
    const note = async (n: number, offset: number) =>
      db.sql(
        `insert into messages (ticket_id, author_id, kind, body)
         select id, $2, 'note', 'Ask the ' || $3 || ' desk.' from tickets
          where workspace_id = $1 and spam_at is null and trashed_at is null order by last_message_at, id limit $4 offset $5`,
        [ACME, PEOPLE.acmeAgent.id, word, n, offset],
      );
    const want = async () =>
      (
        await db.sql(
          `select count(*) filter (where status in ('new', 'open') and snoozed_until is null)::int as open,
                  count(*) filter (where status = 'pending' and snoozed_until is null)::int as pending,
                  count(*) filter (where status = 'solved')::int as solved, count(*)::int as all
             from tickets where workspace_id = $1 and spam_at is null and trashed_at is null
              and id in (select ticket_id from messages where kind = 'note' and to_tsvector('english', body) @@ private.inbox_query($2))`,
          [ACME, word],
        )
      ).rows[0] as Record<string, number>;
    const page = async () => inbox('acmeAgent', { p_view: 'all', p_query: word, p_limit: '200' });
    await note(60, 0);
    const few = await want();
    expect(few.all).toBeGreaterThan(50);
    expect((await page()).search_counts).toMatchObject({ ...few, capped: false });
    await note(60, 60);
    const many = await want();
    expect(many.all).toBeGreaterThan(101);
    const found = await page();
    expect(found.search_counts).toMatchObject({ all: 100, capped: true });
    for (const view of ['open', 'pending', 'solved'])
      expect(found.search_counts![view], view).toBeLessThanOrEqual(many[view]!);
    expect(found.tickets.map((t) => t.id)).toEqual(await expected('all', word));
  });

  it('finds a note word the statistics call common by probing each ticket, as plain SQL does, counts exact under the cap', async () => {
    // Notes the statistics put above the notes set (private.inbox_query_stats' notes_common: ANALYZE's share of the notes
    // times the notes) aren't read from their GIN index first, but probed ticket by ticket, and read only
    // when a step needs them (docs/decisions/095-common-note-words.md). "goodwill" is in notes only,
    // "warehouse" in notes and replies; a fresh word is on 150 notes of the oldest tickets, which no window
    // reaches (step 2 reads its notes), and later on 3 of them with the statistics not told.
    const word = `numbat${randomUUID()
      .replace(/[^a-f]/g, '')
      .slice(0, 8)}`;
    const tag = (
      await db.sql('insert into tags (workspace_id, name) values ($1, $2) returning id', [ACME, `${word}-tag`])
    ).rows[0].id as string;
    await db.sql(
      `insert into messages (ticket_id, author_id, kind, body)
       select id, $2, 'note', 'Ask the ' || $3 || ' desk.' from tickets
        where workspace_id = $1 and spam_at is null and trashed_at is null order by last_message_at, id limit 150`,
      [ACME, PEOPLE.acmeAgent.id, word],
    );
    await db.sql('analyze messages');
    const common = async (query: string, notes: number) =>
      (
        await db.sql('select (private.inbox_query_stats(private.inbox_query($1), $2)).notes_common as common', [
          query,
          notes,
        ])
      ).rows[0].common as boolean;
    expect(await common('goodwill', 40)).toBe(true);
    expect(await common(word, 40)).toBe(true);
    expect(await common(word, 1000)).toBe(false);
    expect(await common('zebra', 0)).toBe(false);
    // A tag on the tickets of the word's first 3 notes (the ones kept below), on 20 with "goodwill" and on 5
    // with "warehouse" in a note but not in their subject or replies.
    await db.sql(
      `insert into ticket_tags (ticket_id, tag_id)
       (select m.ticket_id, $2::uuid from messages m
         where m.workspace_id = $1 and m.kind = 'note' and m.body like '%' || $3 || '%' order by m.created_at, m.id limit 3)
       union (select m.ticket_id, $2::uuid from messages m
         where m.workspace_id = $1 and m.kind = 'note' and m.body ilike '%goodwill%' order by m.created_at desc limit 20)
       union (select m.ticket_id, $2::uuid from messages m join tickets t on t.id = m.ticket_id
         where m.workspace_id = $1 and m.kind = 'note' and m.body ilike '%warehouse%'
           and not t.search @@ private.inbox_query('warehouse') limit 5)`,
      [ACME, tag, word],
    );
    const want = async (query: string, tagged: boolean) =>
      (
        await db.sql(
          `select count(*) filter (where assignee_id is null and status in ('new', 'open') and snoozed_until is null)::int as unassigned,
                  count(*) filter (where status in ('new', 'open') and snoozed_until is null)::int as open,
                  count(*) filter (where status = 'pending' and snoozed_until is null)::int as pending,
                  count(*) filter (where status = 'solved')::int as solved, count(*)::int as all
             from tickets t where workspace_id = $1 and spam_at is null and trashed_at is null
              and (not $3 or id in (select ticket_id from ticket_tags where tag_id = $4))
              and (search @@ private.inbox_query($2)
                   or id in (select ticket_id from messages where kind = 'note' and to_tsvector('english', body) @@ private.inbox_query($2)))`,
          [ACME, query, tagged, tag],
        )
      ).rows[0] as Record<string, number>;
    for (const limit of [1, 3, 25])
      for (const [view, query] of [
        ['all', 'goodwill'],
        ['open', 'goodwill'],
        ['open', 'warehouse'],
        ['all', word],
        ['open', word],
      ] as const)
        await pagesAsPlainSql(view, query, limit, 4);
    // "warehouse" (common in replies too) through the tag, walked whole: the notes are read for its counts
    // (their first 40, and past them the counts are lower bounds), never taken as none.
    const viaTag = (
      await inbox('acmeAgent', { p_view: 'all', p_query: 'warehouse', p_limit: '1', p_tags: [`${word}-tag`] })
    ).search_counts!;
    const inTag = await want('warehouse', true);
    expect(inTag.all).toBeGreaterThanOrEqual(5);
    expect(viaTag).toMatchObject({ capped: true });
    for (const view of ['all', 'open', 'pending', 'solved'])
      expect(viaTag[view], view).toBeLessThanOrEqual(inTag[view]!);
    // Past the cap, lower bounds: none above its view's matches.
    const found = (await inbox('acmeAgent', { p_view: 'all', p_query: word, p_limit: '1' })).search_counts!;
    const all = await want(word, false);
    expect(found).toMatchObject({ capped: true });
    for (const view of ['all', 'open', 'pending', 'solved']) expect(found[view], view).toBeLessThanOrEqual(all[view]!);
    // All but 3 of its notes gone, the statistics not told (no autovacuum meanwhile): still common to them,
    // and counted exactly.
    await db.sql('alter table messages set (autovacuum_enabled = off)');
    try {
      await db.sql(
        `delete from messages where kind = 'note' and body like '%' || $1 || '%'
            and id not in (select id from messages where kind = 'note' and body like '%' || $1 || '%' order by created_at, id limit 3)`,
        [word],
      );
      expect(await common(word, 40)).toBe(true);
      const few = await want(word, false);
      expect(few.all).toBe(3);
      for (const limit of [1, 25]) {
        expect(await pagesAsPlainSql('all', word, limit)).toHaveLength(3);
        expect(
          (await inbox('acmeAgent', { p_view: 'all', p_query: word, p_limit: String(limit) })).search_counts,
        ).toMatchObject({ ...few, capped: false });
      }
      // Through the tag, walked whole (23 tickets): its 3 tickets with the word in a note, counted exactly (the
      // notes read for the walk, never taken as none).
      const tagged = await want(word, true);
      expect(tagged.all).toBe(3);
      expect(
        (await inbox('acmeAgent', { p_view: 'all', p_query: word, p_limit: '1', p_tags: [`${word}-tag`] }))
          .search_counts,
      ).toMatchObject({ ...tagged, capped: false });
    } finally {
      await db.sql('alter table messages reset (autovacuum_enabled)');
    }
  });

  it('reads a prefix as the words in use it begins, whatever wrote them: the same pages and counts as plain SQL', async () => {
    // private.inbox_prefix_words (docs/decisions/100-prefix-as-its-words.md): the last word's prefix is searched as the
    // words of private.search_words it begins, which every write of search text adds to. A word missing there would be
    // a match missed. Every word of the bulk load's tickets and notes (and the tests' before this one) is there.
    const missing = async (source: string) =>
      (
        await db.sql(
          `select count(*)::int as n from ts_stat($1) w
            where not exists (select from private.search_words s where s.word = w.word)`,
          [source],
        )
      ).rows[0].n as number;
    expect(await missing('select search from tickets')).toBe(0);
    expect(await missing(`select to_tsvector('english', body) from messages where kind = 'note'`)).toBe(0);
    // Five words that begin alike, each written another way: a new ticket's subject, a reply, a note, a subject
    // edited, the search text set directly (as a merge or the spam split sets it).
    // Ending in x: no English suffix (an e, "ed", "es") for the stemmer to take off the prefix searched alone.
    const stem = `zq${randomUUID()
      .replace(/[^a-f]/g, '')
      .slice(0, 6)}x`;
    const [subject, reply, note, edited, direct] = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((w) => stem + w);
    const oldest = (
      await db.sql(
        `select id from tickets where workspace_id = $1 and spam_at is null and trashed_at is null
            and status in ('new', 'open', 'pending') order by last_message_at, id limit 4`,
        [ACME],
      )
    ).rows.map((r) => r.id as string);
    await openTicket(db, 'acmeCustomer', `Lost ${subject} parcel`);
    const agent = await db.as('acmeAgent');
    expect(
      (await agent.rpc('post_message', { p_ticket_id: oldest[0], p_body: `Sent the ${reply} today.` })).error,
    ).toBeNull();
    expect(
      (await agent.rpc('post_message', { p_ticket_id: oldest[1], p_body: `Ask ${note} first.`, p_kind: 'note' })).error,
    ).toBeNull();
    await db.sql(`update tickets set subject = subject || ' ' || $2 where id = $1`, [oldest[2], edited]);
    await db.sql(`update tickets set search = search || to_tsvector('english', $2) where id = $1`, [oldest[3], direct]);
    /** The words that begin with `prefix` in every ticket's search text and note, by brute force, in byte order. */
    const inUse = async (prefix: string) =>
      (
        await db.sql(
          `select array(select w.word from (select word from ts_stat('select search from tickets')
                                           union select word from ts_stat($$select to_tsvector('english', body) from messages where kind = 'note'$$)) w
                         where starts_with(w.word, $1) order by w.word collate "C") as words`,
          [prefix],
        )
      ).rows[0].words as string[];
    /** The lexemes of the search the inbox runs for `query`, in order, and whether one is still a prefix. */
    const searched = async (query: string) => {
      const text = (await db.sql('select private.inbox_prefix_words(private.inbox_query($1))::text as q', [query]))
        .rows[0].q as string;
      return { words: [...text.matchAll(/'([^']*)'/g)].map((m) => m[1]), prefix: text.includes(':*') };
    };
    const words = await inUse(stem);
    expect(words).toHaveLength(5);
    expect(await searched(stem)).toEqual({ words, prefix: false });
    expect(await searched(`parcel ${stem}`)).toEqual({ words: ['parcel', ...words], prefix: false });
    // A prefix no word begins stays one; so does a word in quotes (no prefix at all).
    expect(await searched(`${stem}zz`)).toEqual({ words: [`${stem}zz`], prefix: true });
    expect((await searched(`"${stem}"`)).prefix).toBe(false);
    const counted = async (query: string) =>
      (await inbox('acmeAgent', { p_view: 'all', p_query: query })).search_counts;
    for (const limit of [1, 25]) expect(await pagesAsPlainSql('all', stem, limit)).toHaveLength(5);
    expect((await pagesAsPlainSql('all', `parcel ${stem}`, 1)).length).toBeGreaterThanOrEqual(1);
    expect(await counted(stem)).toMatchObject({ all: 5, capped: false });
    // More than 8 words begin with it: searched as the prefix, the same pages.
    await db.sql(`update tickets set search = search || to_tsvector('english', $2) where id = $1`, [
      oldest[3],
      ['foxtrot', 'golf', 'hotel', 'india'].map((w) => stem + w).join(' '),
    ]);
    expect(await inUse(stem)).toHaveLength(9);
    expect(await searched(stem)).toEqual({ words: [stem], prefix: true });
    for (const limit of [1, 25]) expect(await pagesAsPlainSql('all', stem, limit)).toHaveLength(5);
    expect(await counted(stem)).toMatchObject({ all: 5, capped: false });
  });

  it("counts common words with a tag along the tag's tickets as far as step 1 reads them: 101 there, lower bounds", async () => {
    // One tag and common words found together in few of its tickets: the counts walk the tag's tickets as far as step 1
    // may read them (10 windows: 10 000 for 25 rows), not 10 of the counts' windows (1 000), before a count through the
    // GIN indexes, whose bitmaps hold every ticket with either word (docs/decisions/100-prefix-as-its-words.md). Here
    // 150 matches in a tag of 2 500 tickets, 60 of them among its first 1 000 by ticket id: a walk of 1 000 doesn't
    // decide, the longer one does (the views' shares of 101 of them, each at most its true count).
    const [a, b] = ['plum', 'fig'].map(
      (w) =>
        `${w}${randomUUID()
          .replace(/[^a-f]/g, '')
          .slice(0, 6)}`,
    );
    const query = `${a} ${b}`;
    const tag = (await db.sql('insert into tags (workspace_id, name) values ($1, $2) returning id', [ACME, `${a}-tag`]))
      .rows[0].id as string;
    await db.sql(
      `insert into ticket_tags (ticket_id, tag_id)
       select id, $2 from tickets where workspace_id = $1 and spam_at is null and trashed_at is null order by id limit 2500`,
      [ACME, tag],
    );
    const both = (
      await db.sql(
        `with tagged as (select t.id, row_number() over (order by t.id) - 1 as i
                           from tickets t join ticket_tags tt on tt.ticket_id = t.id and tt.tag_id = $1)
         select array((select id from tagged where i < 1000 and i % 16 = 0 limit 60)
                      union all (select id from tagged where i >= 1000 and i % 16 = 0 limit 90)) as ids`,
        [tag],
      )
    ).rows[0].ids as string[];
    expect(both).toHaveLength(150);
    // Each word on a third of the tickets (common to the statistics), both only on those 150.
    for (const [word, third] of [
      [a, 0],
      [b, 1],
    ] as const)
      await db.sql(
        `update tickets set search = search || to_tsvector('english', $2)
          where workspace_id = $1 and (number % 3 = $3 or id = any ($4))`,
        [ACME, word, third, both],
      );
    await db.sql('analyze tickets');
    expect(
      (await db.sql(`select (private.inbox_query_stats(private.inbox_query($1))).rare as rare`, [query])).rows[0].rare,
    ).toBe(false);
    const matches = `from ticket_tags tt join tickets t on t.id = tt.ticket_id
       where tt.tag_id = $2 and t.workspace_id = $1 and t.spam_at is null and t.trashed_at is null
         and (t.search @@ private.inbox_query($3)
              or t.id in (select ticket_id from messages where kind = 'note' and to_tsvector('english', body) @@ private.inbox_query($3)))`;
    const all = (
      await db.sql(
        `select count(*) filter (where assignee_id is null and status in ('new', 'open') and snoozed_until is null)::int as unassigned,
                count(*) filter (where status in ('new', 'open') and snoozed_until is null)::int as open,
                count(*) filter (where status = 'pending' and snoozed_until is null)::int as pending,
                count(*) filter (where status = 'solved')::int as solved, count(*)::int as all
           from (select t.* ${matches}) t`,
        [ACME, tag, query],
      )
    ).rows[0] as Record<string, number>;
    expect(all.all).toBe(150);
    // The counts' walk as public.inbox asks for it, with and without the longer walk of the tag.
    const walk = async (tagWalk: number | null) =>
      (
        await db.sql(
          `select private.inbox_newest_matches(100,
             format('jsonb_build_object(%s, ''capped'', count(*) > 100)',
                    (select string_agg(format('%L, count(*) filter (where %s)', v, private.inbox_view_filter(v)), ', ')
                       from unnest(private.counted_views()) v)),
             private.inbox_where('all', false, false, null, 1, null), '(t.search @@ $6 or t.id = any ($12))',
             $1, $2, null, null, null, private.inbox_prefix_words(private.inbox_query($3)), null, '{}', array[$4::uuid], null,
             100, $5) as counts`,
          [PEOPLE.acmeAgent.id, ACME, query, tag, tagWalk],
        )
      ).rows[0].counts;
    expect(await walk(null)).toBeNull();
    const walked = await walk(10_000);
    expect(walked).toMatchObject({ all: 101, capped: true });
    for (const view of ['unassigned', 'open', 'pending', 'solved'])
      expect(walked[view], view).toBeLessThanOrEqual(all[view]!);
    const page = await inbox('acmeAgent', { p_view: 'all', p_query: query, p_tags: [`${a}-tag`] });
    expect(page.search_counts).toEqual(walked);
    // The page as plain SQL's: the newest of the 150.
    const newest = (
      await db.sql(`select t.id ${matches} order by t.last_message_at desc, t.id desc limit 25`, [ACME, tag, query])
    ).rows.map((r) => r.id as string);
    expect(page.tickets.map((t) => t.id)).toEqual(newest);
  });

  it('names the ticket a number or #number is, and only one that exists', async () => {
    const { number } = (await db.sql(`select max(number) as number from tickets where workspace_id = $1`, [ACME]))
      .rows[0];
    for (const query of [String(number), `#${number}`, ` #${number} `])
      expect((await inbox('acmeAgent', { p_view: 'all', p_query: query })).ticket_number, query).toBe(number);
    expect((await inbox('acmeAgent', { p_view: 'all', p_query: String(number + 1000) })).ticket_number).toBeNull();
    expect((await inbox('acmeAgent', { p_view: 'all', p_query: `refund ${number}` })).ticket_number).toBeNull();
  });

  it('never matches a requester on internal notes (search_tickets), and matches plain SQL on the rest', async () => {
    const customer = await db.as('acmeCustomer');
    const { rows } = await db.sql(
      `select t.id, m.body from tickets t join messages m on m.ticket_id = t.id and m.kind = 'note'
        where t.requester_id = $1 limit 1`,
      [PEOPLE.acmeCustomer.id],
    );
    // A note on one of the customer's own tickets, with a word nothing else has.
    const ticket =
      rows[0]?.id ??
      (await db.sql(`select id from tickets where requester_id = $1 limit 1`, [PEOPLE.acmeCustomer.id])).rows[0].id;
    await db.sql(
      `insert into messages (ticket_id, author_id, kind, body) values ($1, $2, 'note', 'Platypus escalation, internal only.')`,
      [ticket, PEOPLE.acmeAgent.id],
    );
    const search = async (q: string) => {
      const { data, error } = await customer
        .rpc('search_tickets', { p_workspace_id: ACME, p_query: q })
        .order('last_message_at', { ascending: false });
      expect(error).toBeNull();
      return (data as { id: string }[]).map((t) => t.id).sort();
    };
    expect(await search('platypus')).toEqual([]);
    // The agent finds it by the note.
    expect((await inbox('acmeAgent', { p_view: 'all', p_query: 'platypus' })).tickets.map((t) => t.id)).toEqual([
      ticket,
    ]);
    for (const q of ['refund', 'help', '"duplicate charge"']) {
      const want = (
        await db.sql(
          `select id from tickets where workspace_id = $1 and requester_id = $2 and search @@ websearch_to_tsquery('english', $3)`,
          [ACME, PEOPLE.acmeCustomer.id, q],
        )
      ).rows
        .map((r) => r.id as string)
        .sort();
      expect(await search(q), q).toEqual(want);
    }
  });

  it('answers a search stopped by the statement timeout with an empty page and the plan of the statement', async () => {
    // The search waits for a lock on messages (its notes step) until the timeout; the plan is made
    // once the lock is let go.
    const holder = new pg.Client({ connectionString: db.stack.dbUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('lock table public.messages in access exclusive mode');
      const page = inbox('acmeAgent', { p_view: 'all', p_query: 'zebra' }, { statement_timeout: '300ms' });
      // When the search's wait for the lock began, and then, past its 300 ms, the timeout has stopped it
      // and the plan (lock_timeout 2 s) waits for the lock in turn: a wait that began later.
      const waitingSince = async (): Promise<Date | undefined> =>
        (
          await holder.query(
            `select waitstart from pg_locks where relation = 'public.messages'::regclass and not granted and waitstart is not null`,
          )
        ).rows[0]?.waitstart;
      const searchWaits = await waitFor('the search waiting for the lock', waitingSince, 10_000);
      await waitFor(
        'the plan waiting for the lock after the timeout',
        async () => ((await waitingSince())?.getTime() ?? 0) > searchWaits.getTime(),
        10_000,
      );
      await holder.query('commit');
      const result = await page;
      expect(result.tickets).toEqual([]);
      // The statement it stopped (the notes look-up, the first to read messages) and its plan as it ran.
      expect(result.search_timeout).toMatch(/^select array\(select m\.ticket_id from public\.messages/);
      expect(result.search_timeout).toMatch(/Bitmap Index Scan on messages_note_search_idx/);
    } finally {
      await holder.end();
    }
  });
  it("pins a search statement's plan by name, and turns every plan setting on again", async () => {
    // private.inbox_pin: the settings public.inbox and its walks run their statements with, transaction-local.
    const settings = async (pins: string) => {
      const { rows } = await db.sql(
        `select private.inbox_pin($1) as pins, ${['indexscan', 'seqscan', 'bitmapscan', 'sort', 'hashjoin', 'mergejoin']
          .map((s) => `current_setting('enable_${s}') as ${s}`)
          .join(', ')}`,
        [pins],
      );
      const { pins: named, ...off } = rows[0] as Record<string, string>;
      expect(named).toBe(pins);
      return Object.keys(off).filter((s) => off[s] === 'off');
    };
    expect(await settings('bitmap')).toEqual(['indexscan', 'seqscan']);
    expect(await settings('bitmap, probe')).toEqual(['indexscan', 'seqscan', 'hashjoin', 'mergejoin']);
    expect(await settings('ordered')).toEqual(['seqscan', 'bitmapscan', 'sort']);
    expect(await settings('walk')).toEqual(['seqscan', 'bitmapscan', 'sort', 'hashjoin', 'mergejoin']);
    // Local to the statement's transaction: the next one plans as before.
    expect((await db.sql(`select current_setting('enable_seqscan') as s`)).rows[0].s).toBe('on');
    expect(await settings('')).toEqual([]);
  });
});
