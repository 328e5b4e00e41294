// Tags in the database (docs/product.md#tags), per role through PostgREST: members tag and untag
// their workspace's tickets (agents create new tags unless the workspace turns that off), admins
// rename, colour, merge and delete; customers, another workspace and visitors see no tag; the history
// records each change; the inbox filters by tags (all of them) and shows them on its rows.
import { randomUUID } from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../scripts/lib/wait.ts';
import { dbFixture } from '../support/fixture.ts';
import { ACME, GLOBEX, PEOPLE, backendPid, openTicket, waitingFor } from '../support/db.ts';

type Role = 'acmeAdmin' | 'acmeAgent' | 'acmeCustomer' | 'globexAdmin' | 'anon';
const ROLES: Role[] = ['acmeAdmin', 'acmeAgent', 'acmeCustomer', 'globexAdmin', 'anon'];

describe('tags', () => {
  const db = dbFixture();
  const clients = {} as Record<Role, SupabaseClient>;
  const name = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
  const tagOf = async (ticketId: string) =>
    (
      await db.sql(
        'select g.name from ticket_tags tt join tags g on g.id = tt.tag_id where tt.ticket_id = $1 order by 1',
        [ticketId],
      )
    ).rows.map((r) => r.name as string);
  const newTag = async (label = 'fresh', workspace = ACME) =>
    (await db.sql('insert into tags (workspace_id, name) values ($1, $2) returning id', [workspace, name(label)]))
      .rows[0].id as string;

  const tagName = async (id: string) =>
    (await db.sql('select name from tags where id = $1', [id])).rows[0].name as string;
  /** One page of one ticket of the inbox's All for these tag names, with a cursor or sort if given. */
  const tagPage = async (tags: string[], args: Record<string, string> = {}) => {
    const { data, error } = await clients.acmeAgent.rpc('inbox', {
      p_slug: 'acme',
      p_view: 'all',
      p_tags: tags,
      p_limit: 1,
      ...args,
    });
    expect(error).toBeNull();
    return data as { tickets: { id: string }[]; older: { at: string; id: string } | null };
  };
  /** The tickets the inbox lists in All for these tag names (and words), one a page, over at most three pages. */
  const firstThreePages = async (tags: string[], query?: string) => {
    const listed: string[] = [];
    let after: { at: string; id: string } | null = null;
    for (let page = 0; page < 3; page++) {
      const inbox = await tagPage(tags, {
        ...(query ? { p_query: query } : {}),
        ...(after ? { p_after_at: after.at, p_after_id: after.id } : {}),
      });
      listed.push(...inbox.tickets.map((t) => t.id));
      after = inbox.older;
      if (!after) break;
    }
    return listed;
  };

  beforeAll(async () => {
    for (const r of ROLES) clients[r] = r === 'anon' ? db.anon() : await db.as(r);
  });

  describe('per role', () => {
    for (const role of ROLES) {
      const member = role === 'acmeAdmin' || role === 'acmeAgent';
      const admin = role === 'acmeAdmin';

      it(`${role}: ${member ? 'tags' : 'may not tag'} a ticket, creating the tag`, async () => {
        const ticket = await openTicket(db);
        const tag = name('billing');
        const { data, error } = await clients[role].rpc('add_ticket_tag', { p_ticket_id: ticket.id, p_name: tag });
        if (member) {
          expect(error).toBeNull();
          expect(typeof data).toBe('string');
        } else expect(error?.message, role).toMatch(role === 'anon' ? /permission denied/ : /^not_found$/);
        expect(await tagOf(ticket.id)).toEqual(member ? [tag] : []);
      });

      it(`${role}: ${member ? 'reads' : 'reads none of'} the workspace's tags and ticket tags`, async () => {
        const ticket = await openTicket(db);
        const tag = await newTag();
        await db.sql('insert into ticket_tags (ticket_id, tag_id) values ($1, $2)', [ticket.id, tag]);
        const tags = await clients[role].from('tags').select('id').eq('id', tag);
        const links = await clients[role].from('ticket_tags').select('tag_id').eq('ticket_id', ticket.id);
        expect(tags.data ?? []).toHaveLength(member ? 1 : 0);
        expect(links.data ?? []).toHaveLength(member ? 1 : 0);
      });

      it(`${role}: ${member ? 'removes' : 'may not remove'} a ticket's tag`, async () => {
        const ticket = await openTicket(db);
        const tag = await newTag();
        await db.sql('insert into ticket_tags (ticket_id, tag_id) values ($1, $2)', [ticket.id, tag]);
        await clients[role].from('ticket_tags').delete().eq('ticket_id', ticket.id).eq('tag_id', tag);
        expect(await tagOf(ticket.id)).toHaveLength(member ? 0 : 1);
      });

      it(`${role}: ${admin ? 'renames, colours and deletes' : 'may not rename, colour or delete'} a tag`, async () => {
        const tag = await newTag();
        const renamed = name('renamed');
        await clients[role].from('tags').update({ name: renamed, colour: 'red' }).eq('id', tag);
        const { rows } = await db.sql('select name, colour from tags where id = $1', [tag]);
        expect(rows[0].name === renamed && rows[0].colour === 'red').toBe(admin);
        await clients[role].from('tags').delete().eq('id', tag);
        expect((await db.sql('select 1 from tags where id = $1', [tag])).rowCount).toBe(admin ? 0 : 1);
      });

      it(`${role}: ${admin ? 'merges' : 'may not merge'} two tags`, async () => {
        const [from, into] = [await newTag('from'), await newTag('into')];
        const ticket = await openTicket(db);
        await db.sql('insert into ticket_tags (ticket_id, tag_id) values ($1, $2)', [ticket.id, from]);
        const { error } = await clients[role].rpc('merge_tags', { p_from: from, p_into: into });
        if (admin) expect(error).toBeNull();
        else expect(error?.message, role).toMatch(role === 'acmeAgent' ? /^forbidden$/ : /not_found|permission denied/);
        const { rows } = await db.sql('select tag_id from ticket_tags where ticket_id = $1', [ticket.id]);
        expect(rows).toEqual([{ tag_id: admin ? into : from }]);
      });
    }
  });

  it("an agent can't tag a ticket with another workspace's tag, nor tag another workspace's ticket", async () => {
    const ticket = await openTicket(db);
    const globexTag = await newTag('globex', GLOBEX);
    const { error } = await clients.acmeAgent.from('ticket_tags').insert({ ticket_id: ticket.id, tag_id: globexTag });
    expect(error?.message).toBe('not_found');
    const globex = await db.as('globexCustomer');
    const { data: other } = await globex.rpc('create_ticket', {
      p_workspace_slug: 'globex',
      p_subject: 'Elsewhere',
      p_body: 'Hi',
    });
    const bad = await clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: other?.[0]?.id, p_name: 'x' });
    expect(bad.error?.message).toBe('not_found');
    expect(await tagOf(ticket.id)).toEqual([]);
  });

  it('names are identifiers: trimmed and lower-cased, anything else refused', async () => {
    const ticket = await openTicket(db);
    const tag = name('vip');
    const ok = await clients.acmeAgent.rpc('add_ticket_tag', {
      p_ticket_id: ticket.id,
      p_name: `  ${tag.toUpperCase()} `,
    });
    expect(ok.error).toBeNull();
    for (const bad of ['', 'two words', '-leading', 'x'.repeat(41), 'a,b'])
      expect(
        (await clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: ticket.id, p_name: bad })).error?.message,
      ).toBe('tag_invalid');
    // Tagging twice changes nothing.
    expect((await clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: ticket.id, p_name: tag })).error).toBeNull();
    expect(await tagOf(ticket.id)).toEqual([tag]);
  });

  it('agents create tags only while the workspace lets them; admins always', async () => {
    const ticket = await openTicket(db);
    const existing = name('known');
    await db.sql('insert into tags (workspace_id, name) values ($1, $2)', [ACME, existing]);
    await db.sql('update workspaces set agents_create_tags = false where id = $1', [ACME]);
    try {
      const refused = await clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: ticket.id, p_name: name('new') });
      expect(refused.error?.message).toBe('tag_create_forbidden');
      const direct = await clients.acmeAgent.from('tags').insert({ workspace_id: ACME, name: name('direct') });
      expect(direct.error?.code).toBe('42501');
      // An existing tag is still theirs to use; an admin still creates.
      expect(
        (await clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: ticket.id, p_name: existing })).error,
      ).toBeNull();
      expect(
        (await clients.acmeAdmin.rpc('add_ticket_tag', { p_ticket_id: ticket.id, p_name: name('admins') })).error,
      ).toBeNull();
      expect(await tagOf(ticket.id)).toHaveLength(2);
      // Only an admin turns the setting back on.
      await clients.acmeAgent.from('workspaces').update({ agents_create_tags: true }).eq('id', ACME);
      expect((await db.sql('select agents_create_tags from workspaces where id = $1', [ACME])).rows[0]).toEqual({
        agents_create_tags: false,
      });
      await clients.acmeAdmin.from('workspaces').update({ agents_create_tags: true }).eq('id', ACME);
      expect((await db.sql('select agents_create_tags from workspaces where id = $1', [ACME])).rows[0]).toEqual({
        agents_create_tags: true,
      });
    } finally {
      await db.sql('update workspaces set agents_create_tags = true where id = $1', [ACME]);
    }
  });

  it('the history says who added and removed which tag; a merge or a deleted tag writes none', async () => {
    const ticket = await openTicket(db);
    const tag = name('refund');
    const { data: tagId } = await clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: ticket.id, p_name: tag });
    await clients.acmeAgent.from('ticket_tags').delete().eq('ticket_id', ticket.id).eq('tag_id', tagId);
    const [a, b] = [await newTag('a'), await newTag('b')];
    await db.sql('insert into ticket_tags (ticket_id, tag_id) values ($1, $2), ($1, $3)', [ticket.id, a, b]);
    await clients.acmeAdmin.rpc('merge_tags', { p_from: a, p_into: b });
    await clients.acmeAdmin.from('tags').delete().eq('id', b);
    const { rows } = await db.sql(
      `select actor_id, type, "to" from ticket_events where ticket_id = $1 and type like 'tag%' order by id`,
      [ticket.id],
    );
    expect(rows.slice(0, 2)).toEqual([
      { actor_id: PEOPLE.acmeAgent.id, type: 'tag_added', to: tag },
      { actor_id: PEOPLE.acmeAgent.id, type: 'tag_removed', to: tag },
    ]);
    // The two added by SQL (no actor), then nothing for the merge and the delete.
    expect(rows.slice(2).map((r) => r.type)).toEqual(['tag_added', 'tag_added']);
    expect(await tagOf(ticket.id)).toEqual([]);
  });

  it('the inbox filters by tags (every one given), shows them on rows, and an unknown tag matches nothing', async () => {
    const [one, both, none] = [await openTicket(db), await openTicket(db), await openTicket(db)];
    const [x, y] = [name('x'), name('y')];
    for (const [t, tag] of [
      [one, x],
      [both, x],
      [both, y],
    ] as const)
      expect((await clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: t.id, p_name: tag })).error).toBeNull();
    const inbox = async (tags: string[]) => {
      const { data, error } = await clients.acmeAgent.rpc('inbox', { p_slug: 'acme', p_view: 'all', p_tags: tags });
      expect(error).toBeNull();
      return data as { total: number | null; tickets: { id: string; tags: { name: string; colour: string }[] }[] };
    };
    const byX = await inbox([x]);
    expect(byX.tickets.map((t) => t.id).sort()).toEqual([one.id, both.id].sort());
    expect(byX.total).toBeNull();
    expect(byX.tickets.find((t) => t.id === both.id)?.tags.map((t) => t.name)).toEqual([x, y].sort());
    expect((await inbox([x, y])).tickets.map((t) => t.id)).toEqual([both.id]);
    expect((await inbox([x, 'no-such-tag'])).tickets).toEqual([]);
    // With words, in the subject or only in a note, a tag on no ticket (or no tag) finds nothing either, and
    // every view's count says 0 (private.inbox_tags_none: the walks don't look for a match).
    const [noteWord, unused] = [name('kiwi').replace('-', ''), name('unused')];
    expect(
      (await clients.acmeAgent.rpc('post_message', { p_ticket_id: both.id, p_body: `Ask ${noteWord}`, p_kind: 'note' }))
        .error,
    ).toBeNull();
    expect(
      (await clients.acmeAdmin.from('tags').insert({ workspace_id: ACME, name: unused }).select()).data,
    ).toHaveLength(1);
    const searched = async (tags: string[], q: string) => {
      const { data, error } = await clients.acmeAgent.rpc('inbox', {
        p_slug: 'acme',
        p_view: 'all',
        p_tags: tags,
        p_query: q,
      });
      expect(error).toBeNull();
      return data as { tickets: { id: string }[]; search_counts: Record<string, number | boolean> };
    };
    expect((await searched([x], noteWord)).tickets.map((t) => t.id)).toEqual([both.id]);
    for (const tags of [[unused], [x, unused], ['no-such-tag']])
      for (const q of [noteWord, 'please']) {
        const found = await searched(tags, q);
        expect(found.tickets, `${tags} ${q}`).toEqual([]);
        const { capped, ...perView } = found.search_counts;
        expect(capped).toBe(false);
        expect(
          Object.values(perView).every((n) => n === 0),
          `${tags} ${q}`,
        ).toBe(true);
      }
    expect((await inbox([])).tickets.map((t) => t.id)).toContain(none.id);
    // Past five tags (a semi-join each up to five, the rest checked together): still every one given.
    const [six, five] = [await openTicket(db), await openTicket(db)];
    const many = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => name(`m${n}`));
    for (const [t, tags] of [
      [six, many],
      [five, many.slice(0, 5)],
    ] as const)
      for (const tag of tags)
        expect((await clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: t.id, p_name: tag })).error).toBeNull();
    expect((await inbox(many)).tickets.map((t) => t.id)).toEqual([six.id]);
    expect((await inbox(many.slice(0, 5))).tickets.map((t) => t.id).sort()).toEqual([six.id, five.id].sort());
    expect((await inbox([...many.slice(0, 5), x])).tickets).toEqual([]);
    // Customers can't call the inbox at all; their own ticket's row holds no tags.
    const row = await clients.acmeCustomer.from('tickets').select('*').eq('id', both.id).single();
    expect(Object.keys(row.data ?? {})).not.toContain('tags');
  });

  it('a search with a tag on no ticket counts 0 in every view, however many notes match its words', async () => {
    // Such a tag (or no tag) matches nothing (private.inbox_tags_none): an empty page and every count 0, not the "0+"
    // of more than 100 matching notes read for the counts (docs/decisions/109-one-walk-for-page-and-counts.md).
    const word = `kiwa${randomUUID()
      .replace(/[^a-f]/g, '')
      .slice(0, 8)}`;
    const unused = await newTag('unused');
    const { rows } = await db.sql(
      `insert into tickets (workspace_id, requester_id, subject)
       select $1, $2, 'Other ' || g from generate_series(1, 120) g returning id`,
      [ACME, PEOPLE.acmeCustomer.id],
    );
    await db.sql(
      `insert into messages (ticket_id, author_id, kind, body)
       select x, $2, 'note', 'Ask the ' || $3 || ' desk.' from unnest($1::uuid[]) x`,
      [rows.map((r) => r.id), PEOPLE.acmeAgent.id, word],
    );
    const searched = async (tags: string[] | null) => {
      const { data, error } = await clients.acmeAgent.rpc('inbox', {
        p_slug: 'acme',
        p_view: 'open',
        p_tags: tags,
        p_query: word,
      });
      expect(error).toBeNull();
      return data as { tickets: { id: string }[]; search_counts: Record<string, number | boolean> };
    };
    expect((await searched(null)).tickets).toHaveLength(25);
    for (const tags of [[await tagName(unused)], ['no-such-tag']]) {
      const found = await searched(tags);
      expect(found.tickets, `${tags}`).toEqual([]);
      const { capped, ...perView } = found.search_counts;
      expect(capped, `${tags}`).toBe(false);
      expect(
        Object.values(perView).every((n) => n === 0),
        `${tags}`,
      ).toBe(true);
    }
  });

  it('lists a rare tag from its tickets and a common one along the view, newest first, page by page', async () => {
    // A page of one: a tag on 200 tickets or fewer is rare (its tickets are fetched and sorted), on more
    // the inbox walks the view probing each ticket's tags (50_inbox.sql). Same order either way.
    const [rare, common] = [await newTag('rare'), await newTag('common')];
    const { rows } = await db.sql(
      `insert into tickets (workspace_id, requester_id, subject, last_message_at)
       select $1, $2, 'Tagged ' || g, now() - g * interval '1 minute' from generate_series(1, 201) g returning id`,
      [ACME, PEOPLE.acmeCustomer.id],
    );
    const ids = rows.map((r) => r.id as string);
    await db.sql(
      `insert into ticket_tags (ticket_id, tag_id, workspace_id)
       select x, $2::uuid, $3::uuid from unnest($1::uuid[]) x union all select x, $4::uuid, $3::uuid from unnest(($1::uuid[])[1:3]) x`,
      [ids, common, ACME, rare],
    );
    for (const tag of [rare, common]) {
      const expected = (
        await db.sql(
          `select t.id from tickets t join ticket_tags tt on tt.ticket_id = t.id and tt.tag_id = $1
            where t.spam_at is null and t.trashed_at is null order by t.last_message_at desc, t.id desc limit 3`,
          [tag],
        )
      ).rows.map((r) => r.id);
      expect(await firstThreePages([await tagName(tag)])).toEqual(expected);
    }
    expect((await db.sql('select count(*)::int as n from ticket_tags where tag_id = $1', [common])).rows[0].n).toBe(
      201,
    );
  });

  it('a tag the statistics call common is walked along the smaller of its tickets and the view, as plain SQL orders it, even once it has lost its tickets', async () => {
    // A page of one: rare below 200 tickets. After ANALYZE the statistics list this tag on 201 tickets, so the
    // inbox doesn't read its tickets first to learn it (private.inbox_tag_common): in All (more tickets than the
    // tag's) it walks the tag's tickets, in Pending (fewer) the view, probing each ticket's tags
    // (private.inbox_rare_tag); with a rare tag beside it the page starts from the rare one's tickets and still tests
    // the common one.
    const [common, rare] = [await newTag('stats'), await newTag('rarer')];
    const { rows } = await db.sql(
      `insert into tickets (workspace_id, requester_id, subject, last_message_at)
       select $1, $2, 'Counted ' || g, now() - g * interval '1 minute' - interval '1 day' from generate_series(1, 202) g returning id`,
      [ACME, PEOPLE.acmeCustomer.id],
    );
    const ids = rows.map((r) => r.id as string);
    // The common tag on the first 201; the rare one on the first two and on the 202nd (without the common one).
    await db.sql(
      `insert into ticket_tags (ticket_id, tag_id, workspace_id)
       select x, $2::uuid, $3::uuid from unnest(($1::uuid[])[1:201]) x
       union all select x, $4::uuid, $3::uuid from unnest(($1::uuid[])[1:2] || ($1::uuid[])[202]) x`,
      [ids, common, ACME, rare],
    );
    await db.sql('analyze ticket_tags');
    expect((await db.sql('select private.inbox_tag_common($1, 200) as c', [common])).rows[0].c).toBe(true);
    const names = async (tags: string[]) =>
      (
        await db.sql(
          'select array_agg(name order by array_position($1::uuid[], id)) as n from tags where id = any ($1)',
          [tags],
        )
      ).rows[0].n as string[];
    const pages = async (tags: string[]) => firstThreePages(await names(tags));
    const expected = async (tags: string[]) =>
      (
        await db.sql(
          `select t.id from tickets t where t.spam_at is null and t.trashed_at is null
              and (select count(*) from ticket_tags tt where tt.ticket_id = t.id and tt.tag_id = any ($1)) = cardinality($1)
            order by t.last_message_at desc, t.id desc limit 3`,
          [tags],
        )
      ).rows.map((r) => r.id);
    expect(await pages([common])).toEqual(await expected([common]));
    expect(await pages([common])).toEqual(ids.slice(0, 3));
    expect(await pages([common, rare])).toEqual(ids.slice(0, 2));
    expect(await pages([rare, common])).toEqual(ids.slice(0, 2));
    // Which walk: the tag's below the view's tickets (the tallies), else none of its own (the view's).
    const walked = async (viewTickets: number) =>
      (await db.sql('select private.inbox_rare_tag(array[$1::uuid], 200, $2) as at', [common, viewTickets])).rows[0].at;
    expect(await walked(1000)).toBe(1);
    expect(await walked(100)).toBeNull();
    // Pending, with fewer tickets than the tag: the view's, each probed; the same tickets, newest first.
    await db.sql(`update tickets set status = 'pending' where id = any ($1)`, [[ids[0], ids[2], ids[201]]]);
    const pending = async (tags: string[]) => {
      const listed: string[] = [];
      let after: { at: string; id: string } | null = null;
      do {
        const inbox = await tagPage(await names(tags), {
          p_view: 'pending',
          ...(after ? { p_after_at: after.at, p_after_id: after.id } : {}),
        });
        listed.push(...inbox.tickets.map((t) => t.id));
        after = inbox.older;
      } while (after);
      return listed;
    };
    const pendingTotal = (await db.sql(`select count(*)::int as n from tickets where status = 'pending'`)).rows[0].n;
    expect(pendingTotal).toBeLessThan(201);
    expect(await pending([common])).toEqual([ids[0], ids[2]]);
    expect(await pending([rare, common])).toEqual([ids[0]]);
    await db.sql(`update tickets set status = 'new' where id = any ($1)`, [[ids[0], ids[2], ids[201]]]);
    // Untagged since (the statistics still say common): only the tickets that still carry it.
    await db.sql('delete from ticket_tags where tag_id = $1 and ticket_id <> all (($2::uuid[])[2:3])', [common, ids]);
    expect((await db.sql('select private.inbox_tag_common($1, 200) as c', [common])).rows[0].c).toBe(true);
    expect(await pages([common])).toEqual(ids.slice(1, 3));
    expect(await pages([common, rare])).toEqual([ids[1]]);
  });

  it("lists a rare tag's tickets in the order of their latest activity as it moves, both ways and oldest first", async () => {
    // A rare tag's page walks its rows in their copy of each ticket's last_message_at (ticket_tags_activity_idx,
    // 52_triage.sql): a reply must move its ticket there too, and a tag added must take its ticket's time.
    const tag = await newTag('moving');
    const { rows } = await db.sql(
      `insert into tickets (workspace_id, requester_id, subject, last_message_at)
       select $1, $2, 'Moving ' || g, now() - g * interval '1 hour' - interval '3 days' from generate_series(1, 4) g returning id`,
      [ACME, PEOPLE.acmeCustomer.id],
    );
    const ids = rows.map((r) => r.id as string);
    const label = await tagName(tag);
    for (const id of ids.slice(0, 3))
      expect((await clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: id, p_name: label })).error).toBeNull();
    const reply = (id: string) =>
      db.sql(`insert into messages (ticket_id, author_id, kind, body) values ($1, $2, 'reply', 'On it.')`, [
        id,
        PEOPLE.acmeAgent.id,
      ]);
    /** Every page of one, oldest or newest first, then back again with the "newer" cursors. */
    const pagesBothWays = async (sort: 'newest' | 'oldest') => {
      const there: string[] = [];
      const back: string[] = [];
      let cursor: Record<string, string> = {};
      for (let more = true; more; ) {
        const page = await tagPage([label], { p_sort: sort, ...cursor });
        there.push(...page.tickets.map((t) => t.id));
        more = page.older !== null;
        if (page.older) cursor = { p_after_at: page.older.at, p_after_id: page.older.id };
      }
      let at = there.at(-1);
      while (at) {
        // The row's time as the cursors carry it (to the microsecond).
        const last = (await db.sql(`select to_jsonb(last_message_at) #>> '{}' as at from tickets where id = $1`, [at]))
          .rows[0].at as string;
        at = (await tagPage([label], { p_sort: sort, p_before_at: last, p_before_id: at })).tickets[0]?.id;
        if (at) back.push(at);
      }
      return { there, back };
    };
    const expected = async (sort: 'newest' | 'oldest') =>
      (
        await db.sql(
          `select t.id from tickets t join ticket_tags tt on tt.ticket_id = t.id and tt.tag_id = $1
            order by t.last_message_at ${sort === 'oldest' ? 'asc' : 'desc'}, t.id ${sort === 'oldest' ? 'asc' : 'desc'}`,
          [tag],
        )
      ).rows.map((r) => r.id as string);
    const check = async (newestFirst: string[]) => {
      expect(await expected('newest')).toEqual(newestFirst);
      for (const sort of ['newest', 'oldest'] as const) {
        const { there, back } = await pagesBothWays(sort);
        const want = sort === 'newest' ? newestFirst : [...newestFirst].reverse();
        expect(there, sort).toEqual(want);
        expect(back, sort).toEqual(want.slice(0, -1).reverse());
      }
    };
    await check(ids.slice(0, 3));
    // A reply to the oldest tagged ticket makes it the newest; one to an untagged ticket, tagged after, too.
    await reply(ids[2]!);
    await check([ids[2]!, ids[0]!, ids[1]!]);
    await reply(ids[3]!);
    expect((await clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: ids[3], p_name: label })).error).toBeNull();
    await check([ids[3]!, ids[2]!, ids[0]!, ids[1]!]);
    // Every tag row of the workspace carries its ticket's time.
    expect(
      (
        await db.sql(
          `select count(*)::int as n from ticket_tags tt join tickets t on t.id = tt.ticket_id
            where tt.workspace_id = $1 and tt.last_message_at <> t.last_message_at`,
          [ACME],
        )
      ).rows[0].n,
    ).toBe(0);
  });

  it("a tag and a reply written to one ticket at once: whichever commits first, the tag's row has the reply's time", async () => {
    // Two sessions: the second waits for the first's lock on the ticket's row. A tag waiting for a reply then
    // reads the reply's time (ticket_tag_workspace locks the row); a reply waiting for a tag then copies its
    // time to the tag's new row too (tickets_tag_activity, after the wait).
    for (const first of ['reply', 'tag'] as const) {
      const ticket = await openTicket(db);
      const sessions = {
        reply: new pg.Client({ connectionString: db.stack.dbUrl }),
        tag: new pg.Client({ connectionString: db.stack.dbUrl }),
      };
      for (const c of Object.values(sessions)) {
        c.on('error', () => undefined);
        await c.connect();
        await c.query('begin');
      }
      await sessions.tag.query(
        `select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`,
        [JSON.stringify({ sub: PEOPLE.acmeAgent2.id, role: 'authenticated' })],
      );
      const write = {
        reply: () =>
          sessions.reply.query(
            `insert into messages (ticket_id, author_id, kind, body, created_at) values ($1, $2, 'reply', 'Here you go.', now() + interval '1 minute')`,
            [ticket.id, PEOPLE.acmeAgent.id],
          ),
        tag: () => sessions.tag.query('select public.add_ticket_tag($1, $2)', [ticket.id, name('meanwhile')]),
      };
      const second = first === 'reply' ? 'tag' : 'reply';
      try {
        await write[first]();
        const [pidFirst, pidSecond] = [await backendPid(sessions[first]), await backendPid(sessions[second])];
        const waiting = write[second]();
        await waitFor(`the ${second} queued behind the ${first}`, async () =>
          (await waitingFor(db, pidFirst)).some((s) => s.pid === pidSecond),
        );
        await sessions[first].query('commit');
        await waiting;
        await sessions[second].query('commit');
      } finally {
        await Promise.all(Object.values(sessions).map((c) => c.end()));
      }
      const { rows } = await db.sql(
        `select tt.last_message_at = t.last_message_at as same, t.last_message_at > now() as replied
           from ticket_tags tt join tickets t on t.id = tt.ticket_id where tt.ticket_id = $1`,
        [ticket.id],
      );
      expect(rows, `${first} first`).toEqual([{ same: true, replied: true }]);
    }
  });

  it("counts a search's matches among a tag's tickets as plain SQL does: exactly under 100, 101 and capped past it", async () => {
    // The inbox walks at most 10 × least(its window, 100) of a tag's tickets to count a search among them
    // (private.inbox_newest_matches, 50_inbox.sql): 400 with a page of one, 1 000 with 25. "small" (120
    // tickets, ~80 matching) is walked whole; "big" (1 200, 40 matching) only in part, too few matching there
    // to decide, so the indexes count the rest; "mid" (300, ~200 matching) and "huge" (2 100, ~640 matching)
    // pass 100 whichever way they are counted. A saved view counts the same up to 1 000.
    const w = `w${randomUUID().replace(/-/g, '').slice(0, 10)}`;
    const [small, big, mid, huge] = [
      await newTag('small'),
      await newTag('big'),
      await newTag('mid'),
      await newTag('huge'),
    ];
    const { rows } = await db.sql(
      `insert into tickets (workspace_id, requester_id, subject, status, assignee_id)
       select $1, $2, case when g % 3 <> 0 and (g <= 900 or g % 30 = 1) then 'About ' || $3 || ' ' || g else 'Other ' || g end,
              (array['new', 'open', 'pending', 'solved', 'closed']::ticket_status[])[1 + g % 5],
              case when g % 7 = 0 then $4::uuid end
         from generate_series(1, 2100) g returning id`,
      [ACME, PEOPLE.acmeCustomer.id, w, PEOPLE.acmeAgent.id],
    );
    const ids = rows.map((r) => r.id as string);
    await db.sql(
      `insert into ticket_tags (ticket_id, tag_id, workspace_id)
       select x, $2::uuid, $6::uuid from unnest(($1::uuid[])[1:120]) x
       union all select x, $3::uuid, $6::uuid from unnest(($1::uuid[])[901:2100]) x
       union all select x, $4::uuid, $6::uuid from unnest(($1::uuid[])[1:300]) x
       union all select x, $5::uuid, $6::uuid from unnest($1::uuid[]) x`,
      [ids, small, big, mid, huge, ACME],
    );
    // Trash and Spam are in no view's count.
    await db.sql(`update tickets set trashed_at = now() where id = any ($1)`, [[ids[1], ids[930]]]);
    await db.sql(`update tickets set spam_at = now() where id = any ($1)`, [[ids[4], ids[960]]]);
    const expected = async (tag: string) =>
      (
        await db.sql(
          `select count(*)::int as all,
                  count(*) filter (where t.status in ('new', 'open') and t.snoozed_until is null)::int as open,
                  count(*) filter (where t.status in ('new', 'open') and t.snoozed_until is null and t.assignee_id is null)::int as unassigned,
                  count(*) filter (where t.status = 'pending' and t.snoozed_until is null)::int as pending,
                  count(*) filter (where t.status = 'solved')::int as solved
             from tickets t join ticket_tags tt on tt.ticket_id = t.id and tt.tag_id = $1
            where t.subject like '%' || $2 || '%' and t.spam_at is null and t.trashed_at is null`,
          [tag, w],
        )
      ).rows[0] as Record<string, number>;
    const counts = async (tag: string, limit: number) => {
      const { data, error } = await clients.acmeAgent.rpc('inbox', {
        p_slug: 'acme',
        p_view: 'all',
        // "tag:<name> <word>" as the app sends it (inbox-query.server.ts): the tag apart from the words.
        p_query: w,
        p_tags: [await tagName(tag)],
        p_limit: limit,
      });
      expect(error).toBeNull();
      return (data as { search_counts: Record<string, number | boolean> }).search_counts;
    };
    const savedCount = async (tag: string) => {
      const saved = await clients.acmeAgent.rpc('save_inbox_view', {
        p_workspace_id: ACME,
        p_name: `Tagged ${randomUUID().slice(0, 8)}`,
        p_shared: false,
        p_filters: { view: 'all', q: w, tag: [await tagName(tag)] },
      });
      const { data } = await clients.acmeAgent.rpc('inbox', { p_slug: 'acme' });
      const views = (data as { saved_views: { id: string; count: number }[] }).saved_views;
      return views.find((v) => v.id === saved.data)!.count;
    };
    for (const tag of [small, big]) {
      const want = await expected(tag);
      expect(want.all).toBeGreaterThan(30);
      expect(want.all).toBeLessThanOrEqual(100);
      expect(await counts(tag, 1)).toMatchObject({ ...want, capped: false });
      expect(await counts(tag, 25)).toMatchObject({ ...want, capped: false });
      expect(await savedCount(tag)).toBe(want.all);
    }
    for (const tag of [mid, huge]) {
      const want = await expected(tag);
      expect(want.all).toBeGreaterThan(150);
      expect(want.all).toBeLessThanOrEqual(1000);
      for (const limit of [1, 25]) {
        // Past the cap: 101 matches counted, each view's share of them, none more than it has.
        const got = await counts(tag, limit);
        expect(got).toMatchObject({ all: 101, capped: true });
        for (const view of ['open', 'unassigned', 'pending', 'solved'])
          expect(got[view] as number, view).toBeLessThanOrEqual(want[view]!);
      }
      expect(await savedCount(tag)).toBe(want.all);
    }
    await db.sql('delete from saved_views where owner_id = $1', [PEOPLE.acmeAgent.id]);
  });

  it("searches words with a tag along the tag's newest tickets, as plain SQL orders them, whether they are there or further back", async () => {
    // A page of one: step 1 reads at most the tag's newest 400 tickets (10 windows of 40, in the page's order), each
    // tested with the words (private.inbox_tag_page_sql's window, 50_inbox.sql). "near" is on tagged and untagged
    // tickets among the newest; "deep" on untagged ones there and on tagged ones only further back, past those
    // 400 (the GIN indexes find them). Statistics of both tables, so the words and the tag are common.
    const near = `n${randomUUID().replace(/-/g, '').slice(0, 10)}`;
    const deep = `d${randomUUID().replace(/-/g, '').slice(0, 10)}`;
    // And a rare word (not among the statistics' common words): the GIN index's few matches, each one's tags probed.
    const few = `f${randomUUID().replace(/-/g, '').slice(0, 10)}`;
    const tag = await newTag('wide');
    const { rows } = await db.sql(
      `insert into tickets (workspace_id, requester_id, subject, last_message_at)
       select $1::uuid, $2::uuid, case when g % 5 = 0 then $3 || ' ' || $4 when g % 4 = 1 then $3 else 'Plain' end || ' ' || g,
              now() + interval '1 day' - g * interval '1 minute'
         from generate_series(1, 600) g
       union all
       select $1::uuid, $2::uuid, $4 || ' far ' || g, now() - interval '30 days' - g * interval '1 minute' from generate_series(1, 60) g
       returning id, subject`,
      [ACME, PEOPLE.acmeCustomer.id, near, deep],
    );
    // The tag on every ticket but one in five of the newest 600 (those have both words), and on the 60 far back.
    const tagged = rows.filter((r) => !/ \d*[05]$/.test(r.subject) || r.subject.includes(' far ')).map((r) => r.id);
    await db.sql(
      `insert into ticket_tags (ticket_id, tag_id, workspace_id) select x, $2::uuid, $3::uuid from unnest($1::uuid[]) x`,
      [tagged, tag, ACME],
    );
    await db.sql('analyze tickets, ticket_tags');
    // Written after the statistics, which so don't know the word: 24 tickets among the newest, the tag on 12.
    const fewRows = (
      await db.sql(
        `insert into tickets (workspace_id, requester_id, subject, last_message_at)
         select $1::uuid, $2::uuid, $3 || ' ' || g, now() + interval '1 day' - (25 * g + 1) * interval '1 minute'
           from generate_series(1, 24) g returning id, subject`,
        [ACME, PEOPLE.acmeCustomer.id, few],
      )
    ).rows;
    await db.sql(
      `insert into ticket_tags (ticket_id, tag_id, workspace_id) select x, $2::uuid, $3::uuid from unnest($1::uuid[]) x`,
      [fewRows.filter((r) => Number(r.subject.split(' ')[1]) % 2 === 1).map((r) => r.id), tag, ACME],
    );
    expect((await db.sql('select private.inbox_tag_common($1, 200) as c', [tag])).rows[0].c).toBe(true);
    for (const word of [near, deep, few])
      expect(
        (await db.sql('select (private.inbox_query_stats(private.inbox_query($1))).rare as r', [word])).rows[0].r,
      ).toBe(word === few);
    const expected = async (word: string) =>
      (
        await db.sql(
          `select t.id from tickets t join ticket_tags tt on tt.ticket_id = t.id and tt.tag_id = $1
            where t.subject like $2 || ' %' or t.subject like '% ' || $2 || ' %'
            order by t.last_message_at desc, t.id desc limit 3`,
          [tag, word],
        )
      ).rows.map((r) => r.id);
    const name = await tagName(tag);
    for (const word of [near, deep, few]) {
      const want = await expected(word);
      expect(want).toHaveLength(3);
      expect(await firstThreePages([name], word), word).toEqual(want);
    }
    // The far-back matches are the page's and all the counts (60, under the cap: exact).
    expect((await expected(deep)).every((id) => rows.find((r) => r.id === id)!.subject.includes(' far '))).toBe(true);
    // The rare word's: 12 (of its 24).
    for (const [word, all] of [
      [deep, 60],
      [few, 12],
    ] as const)
      for (const limit of [1, 25]) {
        const { data } = await clients.acmeAgent.rpc('inbox', {
          p_slug: 'acme',
          p_view: 'all',
          p_query: word,
          p_tags: [name],
          p_limit: limit,
        });
        expect((data as { search_counts: Record<string, number | boolean> }).search_counts).toMatchObject({
          all,
          capped: false,
        });
      }
  });

  it('searches with tags that no ticket has together find nothing, and with one ticket that has them all, just it', async () => {
    // With a page of one a tag is rare on at most 200 tickets (private.inbox_rare_tag): "few" (30) is, "many"
    // (300) and "third" (250) aren't. The search first asks whether any of the rare tag's tickets carries every
    // other tag (private.inbox_tags_meet, 50_inbox.sql): only the oldest of few's, read last, has "many", and
    // none has "third" too. Statistics of both tables: "many" and "third" are known as common.
    const w = `t${randomUUID().replace(/-/g, '').slice(0, 10)}`;
    const [few, many, third] = [await newTag('few'), await newTag('many'), await newTag('third')];
    const { rows } = await db.sql(
      `insert into tickets (workspace_id, requester_id, subject, last_message_at)
       select $1::uuid, $2::uuid, $3 || ' ' || g, now() + interval '1 day' - g * interval '1 minute'
         from generate_series(1, 600) g returning id`,
      [ACME, PEOPLE.acmeCustomer.id, w],
    );
    const ids = rows.map((r) => r.id as string);
    await db.sql(
      `insert into ticket_tags (ticket_id, tag_id, workspace_id)
       select x, $2::uuid, $5::uuid from unnest(($1::uuid[])[1:30]) x
       union all select x, $3::uuid, $5::uuid from unnest(($1::uuid[])[30:329]) x
       union all select x, $4::uuid, $5::uuid from unnest(($1::uuid[])[31:280]) x`,
      [ids, few, many, third, ACME],
    );
    await db.sql('analyze tickets, ticket_tags');
    const search = async (tags: string[]) => {
      const { data, error } = await clients.acmeAgent.rpc('inbox', {
        p_slug: 'acme',
        p_view: 'all',
        p_query: w,
        p_tags: await Promise.all(tags.map(tagName)),
        p_limit: 1,
      });
      expect(error).toBeNull();
      const page = data as { tickets: { id: string }[]; older: unknown; search_counts: Record<string, unknown> };
      return { ids: page.tickets.map((t) => t.id), older: page.older, counts: page.search_counts };
    };
    for (const tags of [
      [few, many],
      [many, few],
    ])
      expect(await search(tags)).toMatchObject({
        ids: [ids[29]],
        older: null,
        counts: { all: 1, open: 1, capped: false },
      });
    const nothing = {
      ids: [],
      older: null,
      counts: { all: 0, open: 0, unassigned: 0, pending: 0, solved: 0, capped: false },
    };
    for (const tags of [
      [few, third],
      [third, many, few],
      [few, many, third],
    ])
      expect(await search(tags)).toMatchObject(nothing);
    // Without the one ticket's "many", those two have none together either.
    await db.sql('delete from ticket_tags where ticket_id = $1 and tag_id = $2', [ids[29], many]);
    expect(await search([many, few])).toMatchObject(nothing);
  });

  it('searches rare words with a rare tag: its tickets among the words’ matches, as plain SQL orders and counts them', async () => {
    // A word the statistics don't know (rare: step 2 and the counts through the GIN indexes) on 40 tickets, 13 of
    // them tagged "rare" (60 tickets, rare for a page of one or 25); the rare tag's rows are then looked up in a
    // hash (private.inbox_tag_hashed, 50_inbox.sql), not joined. And with a common tag too, on 6 of those 13.
    const [rare, wide] = [await newTag('rare'), await newTag('wide')];
    const plain = await db.sql(
      `insert into tickets (workspace_id, requester_id, subject) select $1::uuid, $2::uuid, 'Plain ' || g
         from generate_series(1, 400) g returning id`,
      [ACME, PEOPLE.acmeCustomer.id],
    );
    await db.sql(
      `insert into ticket_tags (ticket_id, tag_id, workspace_id) select x, $2::uuid, $3::uuid from unnest($1::uuid[]) x`,
      [plain.rows.map((r) => r.id), wide, ACME],
    );
    await db.sql('analyze tickets, ticket_tags');
    const word = `r${randomUUID().replace(/-/g, '').slice(0, 10)}`;
    const { rows } = await db.sql(
      `insert into tickets (workspace_id, requester_id, subject, status, last_message_at)
       select $1::uuid, $2::uuid, case when g <= 40 then $3 || ' ' || g else 'Other ' || g end,
              (array['new', 'open', 'pending', 'solved', 'closed']::ticket_status[])[1 + g % 5],
              now() + interval '1 day' - g * interval '1 minute'
         from generate_series(1, 88) g returning id`,
      [ACME, PEOPLE.acmeCustomer.id, word],
    );
    const ids = rows.map((r) => r.id as string);
    // "rare" on every third of the word’s tickets (13) and on 48 others; "wide" on every other one of those 13 (6).
    const rareOn = [...ids.slice(0, 40).filter((_, i) => i % 3 === 1), ...ids.slice(40)];
    await db.sql(
      `insert into ticket_tags (ticket_id, tag_id, workspace_id) select x, $2::uuid, $4::uuid from unnest($1::uuid[]) x
       union all select x, $3::uuid, $4::uuid from unnest(($1::uuid[])[1:13]) with ordinality u(x, i) where i % 2 = 0`,
      [rareOn, rare, wide, ACME],
    );
    expect(
      (await db.sql('select (private.inbox_query_stats(private.inbox_query($1))).rare as r', [word])).rows[0].r,
    ).toBe(true);
    const expected = async (tags: string[]) =>
      (
        await db.sql(
          `select t.id, t.status from tickets t
            where t.subject like $1 || ' %' and (select count(*) from ticket_tags tt where tt.ticket_id = t.id and tt.tag_id = any ($2)) = cardinality($2)
            order by t.last_message_at desc, t.id desc`,
          [word, tags],
        )
      ).rows as { id: string; status: string }[];
    for (const tags of [[rare], [rare, wide], [wide, rare]]) {
      const want = await expected(tags);
      expect(want).toHaveLength(tags.length === 1 ? 13 : 6);
      const names = await Promise.all(tags.map(tagName));
      expect(await firstThreePages(names, word)).toEqual(want.slice(0, 3).map((r) => r.id));
      for (const limit of [1, 25]) {
        const { data } = await clients.acmeAgent.rpc('inbox', {
          p_slug: 'acme',
          p_view: 'all',
          p_query: word,
          p_tags: names,
          p_limit: limit,
        });
        const page = data as { tickets: { id: string }[]; search_counts: Record<string, unknown> };
        expect(page.tickets.map((t) => t.id)).toEqual(want.slice(0, limit).map((r) => r.id));
        expect(page.search_counts).toMatchObject({
          all: want.length,
          pending: want.filter((r) => r.status === 'pending').length,
          solved: want.filter((r) => r.status === 'solved').length,
          capped: false,
        });
      }
    }
  });

  it('two agents creating the same new tag at once end with one tag on both tickets', async () => {
    const [t1, t2] = [await openTicket(db), await openTicket(db)];
    const tag = name('race');
    const agent2 = await db.as('acmeAgent2');
    const [a, b] = await Promise.all([
      clients.acmeAgent.rpc('add_ticket_tag', { p_ticket_id: t1.id, p_name: tag }),
      agent2.rpc('add_ticket_tag', { p_ticket_id: t2.id, p_name: tag }),
    ]);
    expect([a.error, b.error]).toEqual([null, null]);
    expect(a.data).toBe(b.data);
    expect((await db.sql('select count(*)::int as n from tags where name = $1', [tag])).rows[0].n).toBe(1);
  });
});
