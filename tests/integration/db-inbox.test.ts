// public.inbox (the inbox page in one call) and the tallies behind its counts, through PostgREST as
// the seeded people, checked against plain SQL over the same tickets.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, PEOPLE, openTicket, seedBulk, startDbStack } from '../support/db.ts';

interface Cursor {
  at: string;
  id: string;
}
interface Inbox {
  workspace: { id: string; slug: string; name: string };
  role: string;
  members: { user_id: string; role: string; name: string }[];
  counts: Record<string, number>;
  total: number | null;
  tickets: {
    id: string;
    number: number;
    requester: string;
    assignee: string | null;
    status: string;
    priority: string;
  }[];
  older: Cursor | null;
  newer: Cursor | null;
}

// Tickets in Spam or Trash are in those views only (supabase/schemas/54_spam_trash_split.sql).
const LISTED = 'spam_at is null and trashed_at is null';
const VIEW_SQL: Record<string, string> = {
  unassigned: `assignee_id is null and status in ('new', 'open') and snoozed_until is null and ${LISTED}`,
  mine: `assignee_id = $2 and status in ('new', 'open', 'pending') and snoozed_until is null and ${LISTED}`,
  open: `status in ('new', 'open') and snoozed_until is null and ${LISTED}`,
  pending: `status = 'pending' and snoozed_until is null and ${LISTED}`,
  snoozed: `snoozed_until is not null and ${LISTED}`,
  solved: `status = 'solved' and ${LISTED}`,
  all: LISTED,
  spam: 'spam_at is not null and trashed_at is null',
  trash: 'trashed_at is not null',
};

// Tallies that disagree with a count of the tickets, either way (empty when they agree).
const TALLY_DRIFT = `
  with tallied as (select workspace_id, status, priority, assignee_id, snoozed, n from private.ticket_tallies where n > 0),
       counted as (select workspace_id, status, priority, assignee_id, snoozed_until is not null as snoozed, count(*) as n
                     from public.tickets where spam_at is null and trashed_at is null group by 1, 2, 3, 4, 5)
  select * from ((table tallied except table counted) union all (table counted except table tallied)) d`;

describe('inbox', () => {
  const db = dbFixture();
  let agent: SupabaseClient;
  beforeAll(async () => {
    agent = await db.as('acmeAgent');
  });

  async function inbox(c: SupabaseClient, args: Record<string, unknown>): Promise<Inbox> {
    const { data, error } = await c.rpc('inbox', { p_slug: 'acme', ...args });
    if (error) throw new Error(`inbox: ${error.message}`);
    return data as Inbox;
  }

  async function expected(where: string, me: string, params: unknown[] = [], limit = 25) {
    const sql = `select id from tickets where workspace_id = $1 and $2::uuid is not null and ${where} order by last_message_at desc, id desc`;
    const all = (await db.sql(sql, [ACME, me, ...params])).rows.map((r) => r.id as string);
    return { count: all.length, page: all.slice(0, limit), all };
  }

  it('keeps its tallies equal to a count of the tickets through every kind of change', async () => {
    expect((await db.sql(TALLY_DRIFT)).rows).toEqual([]);
    // Many at once: new requests and agents claiming them (statement triggers take tallies in key order).
    const opened = await Promise.all(
      Array.from({ length: 12 }, (_, i) => openTicket(db, i % 2 ? 'acmeCustomer' : 'acmeCustomer2', `Tally ${i}`)),
    );
    const agents = await Promise.all([db.as('acmeAgent'), db.as('acmeAgent2'), db.as('acmeAdmin')]);
    const claims = await Promise.all(
      Array.from({ length: 9 }, (_, i) => agents[i % 3]!.rpc('claim_next_ticket', { p_workspace_id: ACME })),
    );
    for (const r of claims) expect(r.error).toBeNull();
    expect((await db.sql(TALLY_DRIFT)).rows).toEqual([]);

    // Replies that move the status, priority and assignee changes, a requester solving, the closing job.
    const [a, b, c] = opened;
    expect(
      (await agent.rpc('post_message', { p_ticket_id: a!.id, p_body: 'On it.', p_new_status: 'pending' })).error,
    ).toBeNull();
    expect(
      (await agent.from('tickets').update({ priority: 'urgent', assignee_id: PEOPLE.acmeAgent2.id }).eq('id', b!.id))
        .error,
    ).toBeNull();
    expect((await agent.from('tickets').update({ assignee_id: null }).eq('id', a!.id)).error).toBeNull();
    const customer = await db.as(c!.number % 2 ? 'acmeCustomer2' : 'acmeCustomer');
    await customer.from('tickets').update({ status: 'solved' }).eq('id', c!.id);
    await agent.from('tickets').update({ status: 'solved' }).eq('id', b!.id);
    await db.sql(`update tickets set solved_at = now() - interval '8 days' where id = $1`, [b!.id]);
    expect((await db.service().rpc('close_solved_tickets')).error).toBeNull();
    expect((await db.sql(`select status from tickets where id = $1`, [b!.id])).rows[0].status).toBe('closed');
    expect((await db.sql(TALLY_DRIFT)).rows).toEqual([]);

    // Bulk volume (one statement per 10 000 rows) and a workspace deleted with its tickets.
    await seedBulk(db, 1500);
    const owner = await db.as('globexAdmin');
    const created = await owner.rpc('create_workspace', { p_name: 'Short lived', p_slug: 'short-lived' });
    expect(created.error).toBeNull();
    const gone = await db.as('acmeCustomer');
    for (let i = 0; i < 3; i++)
      expect(
        (await gone.rpc('create_ticket', { p_workspace_slug: 'short-lived', p_subject: `Bye ${i}`, p_body: 'x' }))
          .error,
      ).toBeNull();
    expect(
      (
        await db.sql(
          `select sum(n)::int as n from private.ticket_tallies t join workspaces w on w.id = t.workspace_id where w.slug = 'short-lived'`,
        )
      ).rows[0].n,
    ).toBe(3);
    await db.sql(`delete from workspaces where slug = 'short-lived'`);
    expect((await db.sql(TALLY_DRIFT)).rows).toEqual([]);
  });

  it('starts its tallies from zero when the tickets are truncated', async () => {
    const scratch = await startDbStack();
    try {
      await scratch.sql('truncate public.tickets cascade');
      expect((await scratch.sql('select count(*)::int as n from private.ticket_tallies')).rows[0].n).toBe(0);
      await openTicket(scratch, 'acmeCustomer', 'After the truncate');
      expect((await scratch.sql(TALLY_DRIFT)).rows).toEqual([]);
      expect((await scratch.sql('select sum(n)::int as n from private.ticket_tallies')).rows[0].n).toBe(1);
    } finally {
      await scratch.teardown();
    }
  });

  it('answers members only: anyone else gets not_found, never a hint that the workspace exists', async () => {
    const anon = await db.anon().rpc('inbox', { p_slug: 'acme' });
    expect(anon.error?.code).toBe('42501');
    for (const person of ['acmeCustomer', 'globexAgent', 'globexAdmin'] as const) {
      const { data, error } = await (await db.as(person)).rpc('inbox', { p_slug: 'acme' });
      expect(data).toBeNull();
      expect(error).toMatchObject({ code: 'P0001', message: 'not_found' });
    }
    const missing = await agent.rpc('inbox', { p_slug: 'no-such-place' });
    expect(missing.error).toMatchObject({ code: 'P0001', message: 'not_found' });

    const page = await inbox(agent, {});
    expect(page.workspace).toEqual({ id: ACME, slug: 'acme', name: 'Acme Support', time_zone: 'UTC' });
    expect(page.role).toBe('agent');
    expect(page.members.map((m) => m.user_id).sort()).toEqual(
      [PEOPLE.acmeAdmin.id, PEOPLE.acmeAgent.id, PEOPLE.acmeAgent2.id].sort(),
    );
    expect((await inbox(await db.as('acmeAdmin'), {})).role).toBe('admin');
  });

  it('refuses values outside the vocabulary with bad_request', async () => {
    for (const args of [
      { p_view: 'everything' },
      { p_status: 'lost' },
      { p_priority: 'extreme' },
      { p_assignee: 'bob' },
      { p_limit: 0 },
      { p_limit: 1001 },
    ]) {
      const { error } = await agent.rpc('inbox', { p_slug: 'acme', ...args });
      expect(error, JSON.stringify(args)).toMatchObject({ code: 'P0001', message: 'bad_request' });
    }
  });

  it('counts every view exactly, for each member, and lists the newest activity first', async () => {
    for (const person of ['acmeAgent', 'acmeAdmin'] as const) {
      const me = PEOPLE[person].id;
      const c = await db.as(person);
      const counts: Record<string, number> = {};
      for (const [view, where] of Object.entries(VIEW_SQL)) {
        const want = await expected(where, me);
        counts[view] = want.count;
        const page = await inbox(c, { p_view: view });
        expect(
          page.tickets.map((t) => t.id),
          `${person} ${view}`,
        ).toEqual(want.page);
        expect(page.total).toBe(want.count);
        expect(page.older === null).toBe(want.count <= 25);
        expect(page.newer).toBeNull();
      }
      // Mentions (tickets whose notes name me): counted exactly too; its order is tested in db-inbox-views.
      const mentions = await db.sql(
        `select count(distinct m.ticket_id)::int as n from message_mentions mm join messages m on m.id = mm.message_id
          where mm.workspace_id = $1 and mm.user_id = $2`,
        [ACME, me],
      );
      counts.mentions = mentions.rows[0].n;
      expect((await inbox(c, {})).counts).toEqual(counts);
    }
  });

  it('applies status, priority and assignee filters on top of a view, totals included', async () => {
    const me = PEOPLE.acmeAgent.id;
    const cases: [Record<string, unknown>, string, unknown[]][] = [
      [{ p_view: 'open', p_priority: 'high' }, `${VIEW_SQL.open} and priority = $3`, ['high']],
      [
        { p_view: 'all', p_status: 'pending', p_assignee: PEOPLE.acmeAgent2.id },
        `status = $3 and assignee_id = $4`,
        ['pending', PEOPLE.acmeAgent2.id],
      ],
      [{ p_view: 'all', p_assignee: 'none' }, `assignee_id is null`, []],
      [{ p_view: 'mine', p_priority: 'urgent' }, `${VIEW_SQL.mine} and priority = $3`, ['urgent']],
      [{ p_view: 'solved', p_status: 'open' }, 'false', []],
    ];
    for (const [args, where, params] of cases) {
      const want = await expected(where, me, params);
      const page = await inbox(agent, args);
      expect(
        page.tickets.map((t) => t.id),
        JSON.stringify(args),
      ).toEqual(want.page);
      expect(page.total, JSON.stringify(args)).toBe(want.count);
    }
  });

  it('pages by cursor through a whole view exactly once, older and back newer', async () => {
    const want = await expected('true', PEOPLE.acmeAgent.id);
    const pages: string[][] = [];
    let page = await inbox(agent, { p_view: 'all', p_limit: 100 });
    pages.push(page.tickets.map((t) => t.id));
    while (page.older) {
      page = await inbox(agent, { p_view: 'all', p_limit: 100, p_after_at: page.older.at, p_after_id: page.older.id });
      pages.push(page.tickets.map((t) => t.id));
    }
    expect(pages.flat()).toEqual(want.all);
    expect(pages.length).toBe(Math.ceil(want.count / 100));
    // From the last page back to the first with the "newer" cursors.
    const back: string[][] = [page.tickets.map((t) => t.id)];
    while (page.newer) {
      page = await inbox(agent, {
        p_view: 'all',
        p_limit: 100,
        p_before_at: page.newer.at,
        p_before_id: page.newer.id,
      });
      back.unshift(page.tickets.map((t) => t.id));
    }
    expect(back).toEqual(pages);
    expect(page.newer).toBeNull();
  });

  it('searches subject, replies and internal notes, rare and common words alike, newest first', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'The xylophone arrived out of tune');
    expect(
      (await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Could you send a photo of the quokka sticker?' }))
        .error,
    ).toBeNull();
    expect(
      (
        await agent.rpc('post_message', {
          p_ticket_id: t.id,
          p_body: 'Narwhal batch, known supplier problem.',
          p_kind: 'note',
        })
      ).error,
    ).toBeNull();
    for (const word of ['xylophone', 'quokka', 'narwhal']) {
      const page = await inbox(agent, { p_view: 'all', p_query: word });
      expect(
        page.tickets.map((x) => x.id),
        word,
      ).toEqual([t.id]);
      expect(page.total).toBeNull();
    }
    expect((await inbox(agent, { p_view: 'all', p_query: 'zzyzx' })).tickets).toEqual([]);
    // Only stop words or punctuation: no lexeme, no match (and no scan of every ticket).
    for (const query of ['the', 'and or', '!!! & | :*']) {
      const page = await inbox(agent, { p_view: 'all', p_query: query });
      expect(page.tickets, query).toEqual([]);
      expect(page.older).toBeNull();
    }

    // Against a brute-force search over every ticket: the most common word (the page is among the newest
    // tickets), a rare one (the index path) and a phrase, in two views, two pages deep.
    const words = (
      await db.sql(
        `select word, ndoc from ts_stat($$select search from tickets where workspace_id = '${ACME}'$$) where length(word) > 3 order by ndoc desc, word`,
      )
    ).rows as { word: string; ndoc: number }[];
    const common = words[0]!.word;
    const rare = words.filter((w) => w.ndoc >= 30 && w.ndoc <= 60).at(-1)?.word ?? words.at(-1)!.word;
    const match = `(search @@ websearch_to_tsquery('english', $3) or id in (select ticket_id from messages where kind = 'note' and to_tsvector('english', body) @@ websearch_to_tsquery('english', $3)))`;
    for (const [view, query] of [
      ['all', common],
      ['all', rare],
      ['open', common],
      ['all', `"${common}" -${rare}`],
    ] as const) {
      const want = await expected(`${VIEW_SQL[view]} and ${match}`, PEOPLE.acmeAgent.id, [query]);
      expect(want.count, query).toBeGreaterThan(0);
      const first = await inbox(agent, { p_view: view, p_query: query });
      expect(
        first.tickets.map((x) => x.id),
        `${view} ${query}`,
      ).toEqual(want.page);
      if (first.older) {
        const second = await inbox(agent, {
          p_view: view,
          p_query: query,
          p_after_at: first.older.at,
          p_after_id: first.older.id,
        });
        expect(
          second.tickets.map((x) => x.id),
          `${view} ${query} page 2`,
        ).toEqual(want.all.slice(25, 50));
      } else {
        expect(want.count).toBeLessThanOrEqual(25);
      }
    }
  });

  it("carries each row's latest satisfaction answer, the one a member reads through RLS", async () => {
    // Three new requests, newest activity first in "all": answered twice (then asked again, unanswered),
    // asked but unanswered, never asked.
    const [rated, asked, never] = [
      await openTicket(db, 'acmeCustomer', 'Rated twice'),
      await openTicket(db, 'acmeCustomer', 'Asked, no answer'),
      await openTicket(db, 'acmeCustomer', 'Never asked'),
    ];
    await db.sql(
      `insert into csat_surveys (ticket_id, workspace_id, requester_id, question, created_at, rating, rated_at)
       values ($1, $3, $4, 'How did we do?', now() - interval '3 days', 'good', now() - interval '3 days'),
              ($1, $3, $4, 'How did we do?', now() - interval '2 days', 'bad', now() - interval '2 days'),
              ($1, $3, $4, 'How did we do?', now() - interval '1 day', null, null),
              ($2, $3, $4, 'How did we do?', now() - interval '1 day', null, null)`,
      [rated.id, asked.id, ACME, PEOPLE.acmeCustomer.id],
    );
    const ids = [rated.id, asked.id, never.id];
    // What the inbox read before it carried the answer: the agent's own read of csat_surveys (RLS).
    const { data: surveys, error } = await agent
      .from('csat_surveys')
      .select('ticket_id, rating')
      .in('ticket_id', ids)
      .not('rating', 'is', null)
      .order('created_at', { ascending: false });
    expect(error).toBeNull();
    const latest = new Map<string, string>();
    for (const s of surveys!) if (!latest.has(s.ticket_id)) latest.set(s.ticket_id, s.rating!);
    const rows = (await inbox(agent, { p_view: 'all' })).tickets as unknown as { id: string; rating: string | null }[];
    const shown = Object.fromEntries(rows.filter((r) => ids.includes(r.id)).map((r) => [r.id, r.rating]));
    expect(shown).toEqual({ [rated.id]: 'bad', [asked.id]: null, [never.id]: null });
    expect(shown).toEqual(Object.fromEntries(ids.map((id) => [id, latest.get(id) ?? null])));
    await db.sql('delete from csat_surveys where ticket_id = any ($1)', [ids]);
  });
});

describe('ticket page and requester card', () => {
  const db = dbFixture();

  it("shows members the requester's email and other recent requests, and nobody else anything", async () => {
    const older = await openTicket(db, 'acmeCustomer2', 'First question');
    const latest = await openTicket(db, 'acmeCustomer2', 'Second question');
    const { data, error } = await (await db.as('acmeAgent')).rpc('requester_card', { p_ticket_id: latest.id });
    expect(error).toBeNull();
    const { rows } = await db.sql(
      `select count(*)::int as n, array_agg(number order by last_message_at desc) as numbers from tickets where requester_id = $1 and workspace_id = $2`,
      [PEOPLE.acmeCustomer2.id, ACME],
    );
    expect(data).toMatchObject({
      user_id: PEOPLE.acmeCustomer2.id,
      email: PEOPLE.acmeCustomer2.email,
      requests: rows[0].n,
    });
    const recent = (data as { recent: { number: number; subject: string }[] }).recent;
    expect(recent.map((r) => r.number)).toEqual(
      (rows[0].numbers as number[]).filter((n) => n !== latest.number).slice(0, 5),
    );
    expect(recent[0]).toMatchObject({ number: older.number, subject: 'First question', status: 'new' });

    for (const person of ['acmeCustomer2', 'acmeCustomer', 'globexAgent'] as const) {
      const other = await (await db.as(person)).rpc('requester_card', { p_ticket_id: latest.id });
      expect(other.data, person).toBeNull();
      expect(other.error, person).toMatchObject({ code: 'P0001', message: 'not_found' });
    }
    expect((await db.anon().rpc('requester_card', { p_ticket_id: latest.id })).error?.code).toBe('42501');
  });

  it('gives members the whole ticket in one call — thread with notes, history, names — and nobody else anything', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Lamp flickers');
    const agent = await db.as('acmeAgent');
    expect(
      (await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Checked the batch.', p_kind: 'note' })).error,
    ).toBeNull();
    expect(
      (
        await agent.rpc('post_message', {
          p_ticket_id: t.id,
          p_body: 'A new bulb is on its way.',
          p_new_status: 'pending',
        })
      ).error,
    ).toBeNull();
    expect((await agent.from('tickets').update({ assignee_id: PEOPLE.acmeAgent2.id }).eq('id', t.id)).error).toBeNull();

    const { data, error } = await agent.rpc('ticket_page', { p_slug: 'acme', p_number: t.number });
    expect(error).toBeNull();
    const page = data as {
      workspace: { slug: string };
      role: string;
      members: { user_id: string }[];
      ticket: { id: string; status: string; assignee_id: string };
      messages: { kind: string; body: string; author_id: string }[];
      events: { type: string; to: string | null }[];
      names: Record<string, string>;
      requester: { email: string };
    };
    expect(page.workspace.slug).toBe('acme');
    expect(page.role).toBe('agent');
    expect(page.members).toHaveLength(3);
    expect(page.ticket).toMatchObject({ id: t.id, status: 'pending', assignee_id: PEOPLE.acmeAgent2.id });
    expect(page.messages.map((m) => [m.kind, m.body])).toEqual([
      ['reply', 'Please help, it is smoking.'],
      ['note', 'Checked the batch.'],
      ['reply', 'A new bulb is on its way.'],
    ]);
    // Newest first, as the history shows them.
    expect(page.events.map((e) => e.type)).toEqual(['assignee', 'status', 'created']);
    const { rows } = await db.sql(`select user_id, display_name from profiles where user_id = any($1)`, [
      [PEOPLE.acmeCustomer.id, PEOPLE.acmeAgent.id, PEOPLE.acmeAgent2.id, PEOPLE.acmeAdmin.id],
    ]);
    expect(page.names).toEqual(Object.fromEntries(rows.map((r) => [r.user_id, r.display_name])));
    expect(page.requester.email).toBe(PEOPLE.acmeCustomer.email);

    for (const person of ['acmeCustomer', 'globexAgent'] as const) {
      const other = await (await db.as(person)).rpc('ticket_page', { p_slug: 'acme', p_number: t.number });
      expect(other.error, person).toMatchObject({ code: 'P0001', message: 'not_found' });
    }
    expect((await agent.rpc('ticket_page', { p_slug: 'acme', p_number: 999_999 })).error).toMatchObject({
      code: 'P0001',
      message: 'not_found',
    });
    expect((await agent.rpc('ticket_page', { p_slug: 'globex', p_number: 1 })).error).toMatchObject({
      code: 'P0001',
      message: 'not_found',
    });
    expect((await db.anon().rpc('ticket_page', { p_slug: 'acme', p_number: t.number })).error?.code).toBe('42501');
  });

  it("carries what the page's composer and sidebar read through RLS: canned replies, my signature, the fields, the rating, the followers", async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Kettle leaks');
    const agent = await db.as('acmeAgent');
    expect((await agent.from('signatures').insert({ body: 'Sam, Acme support' })).error).toBeNull();
    for (const who of ['acmeCustomer2', 'globexCustomer'] as const)
      expect(
        (await agent.rpc('add_ticket_follower', { p_ticket_id: t.id, p_email: PEOPLE[who].email })).error,
      ).toBeNull();
    const { data, error } = await agent.rpc('ticket_page', { p_slug: 'acme', p_number: t.number });
    expect(error).toBeNull();
    const page = data as {
      canned: { title: string }[];
      signature: string | null;
      fields: unknown[];
      rating: { rating: string; comment: string | null } | null;
      followers: { user_id: string; name: string; email: string }[];
    };
    // The followers as the followers page lists them, first added first.
    const listed = await agent.rpc('ticket_follower_list', { p_slug: 'acme', p_number: t.number });
    const followers = listed.data as { user_id: string; name: string; email: string }[];
    expect(followers.map((f) => f.user_id)).toEqual([PEOPLE.acmeCustomer2.id, PEOPLE.globexCustomer.id]);
    expect(page.followers).toEqual(followers.map(({ user_id, name, email }) => ({ user_id, name, email })));
    // The same as the reads the page made before (docs/decisions/066-page-cost.md), each through RLS.
    const canned = await agent.from('canned_replies').select('title').eq('workspace_id', ACME);
    expect(canned.data!.length).toBeGreaterThan(0);
    expect(page.canned.map((c) => c.title).sort()).toEqual(canned.data!.map((c) => c.title).sort());
    expect(page.signature).toBe('Sam, Acme support');
    const fields = await agent.rpc('ticket_field_list', { p_slug: 'acme', p_number: t.number });
    expect(page.fields).toEqual(fields.data);
    expect(page.rating).toBeNull();
    // Another agent's page has their own signature (none).
    const other = await (await db.as('acmeAgent2')).rpc('ticket_page', { p_slug: 'acme', p_number: t.number });
    expect((other.data as { signature: string | null }).signature).toBeNull();
  });

  it('sends a window of a long thread: the newest messages, and from an earlier message on plus a page before it', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'A long story');
    // 70 more messages a second apart (notes too); the 40th and 41st at the same instant, so the id decides.
    await db.sql(
      `insert into messages (ticket_id, workspace_id, author_id, kind, body, created_at)
       select $1, $2, case when g % 3 = 0 then $3::uuid else $4::uuid end, case when g % 5 = 0 then 'note' else 'reply' end,
              'Message ' || g, now() + make_interval(secs => case when g = 41 then 40 else g end)
         from generate_series(1, 70) g`,
      [t.id, ACME, PEOPLE.acmeAgent.id, PEOPLE.acmeCustomer.id],
    );
    const all = (
      await db.sql(`select id, created_at from messages where ticket_id = $1 order by created_at, id`, [t.id])
    ).rows.map((r) => ({ id: r.id as string, at: (r.created_at as Date).toISOString() }));
    expect(all).toHaveLength(71);
    const agent = await db.as('acmeAgent');
    type Page = { messages: { id: string; created_at: string }[]; mine: number };
    const page = async (args: Record<string, unknown>) => {
      const { data, error } = await agent.rpc('ticket_page', { p_slug: 'acme', p_number: t.number, ...args });
      expect(error).toBeNull();
      return data as Page;
    };
    const ids = (p: Page) => p.messages.map((m) => m.id);

    // The newest 30, and one more before them: there are earlier ones.
    const newest = await page({ p_page: 30 });
    expect(ids(newest)).toEqual(all.slice(-31).map((m) => m.id));
    expect(newest.mine).toBe(23);
    // From the oldest shown on, and 30 (+1) before it.
    const oldest = newest.messages[1]!;
    const earlier = await page({ p_page: 30, p_earlier_at: oldest.created_at, p_earlier_id: oldest.id });
    expect(ids(earlier)).toEqual(all.slice(-61).map((m) => m.id));
    // Near the start, fewer than a page before the cursor: the whole thread, nothing more to ask for.
    const start = earlier.messages[1]!;
    expect(ids(await page({ p_page: 30, p_earlier_at: start.created_at, p_earlier_id: start.id }))).toEqual(
      all.map((m) => m.id),
    );
    // A page is 100 at most, whatever is asked.
    expect((await page({ p_page: 100_000 })).messages).toHaveLength(71);
    const seventy = await page({ p_page: 0 });
    expect(ids(seventy)).toEqual(all.slice(-2).map((m) => m.id));
    // A requester asking for the agent's window of their own ticket: nothing (the portal reads through RLS).
    const customer = await db.as('acmeCustomer');
    expect((await customer.rpc('ticket_page', { p_slug: 'acme', p_number: t.number })).error).toMatchObject({
      code: 'P0001',
      message: 'not_found',
    });
  });
});
