// Merging tickets in the database (docs/product.md#merge): public.merge_tickets folds a secondary ticket
// into a primary of the same workspace for a member — its messages, notes, files and history join the
// primary's, it is closed as merged (merged_into_id) and its requester, if another, is recorded as a
// follower; mail to its thread lands on the primary. Per role, the state machine's cells, the refusals,
// and two merges of one pair at once (one wins, the other is refused).
import type { SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../scripts/lib/wait.ts';
import { dbFixture } from '../support/fixture.ts';
import { ACME, PEOPLE, backendPid, openTicket, waitingFor } from '../support/db.ts';

type Role = 'acmeAdmin' | 'acmeAgent' | 'acmeCustomer' | 'globexAdmin' | 'anon';
const ROLES: Role[] = ['acmeAdmin', 'acmeAgent', 'acmeCustomer', 'globexAdmin', 'anon'];

describe('merging tickets', () => {
  const db = dbFixture();
  const clients = {} as Record<Role, SupabaseClient>;
  const row = async (id: string) =>
    (await db.sql('select status, merged_into_id from tickets where id = $1', [id])).rows[0] as {
      status: string;
      merged_into_id: string | null;
    };
  const merge = (c: SupabaseClient, secondary: string, into: string) =>
    c.rpc('merge_tickets', { p_ticket_id: secondary, p_into: into });

  beforeAll(async () => {
    for (const r of ROLES) clients[r] = r === 'anon' ? db.anon() : await db.as(r);
  });

  for (const role of ROLES) {
    const member = role === 'acmeAdmin' || role === 'acmeAgent';
    it(`${role}: ${member ? 'merges' : 'may not merge'} two of the workspace's tickets`, async () => {
      const [a, b] = [await openTicket(db), await openTicket(db)];
      const { data, error } = await merge(clients[role], a.id, b.id);
      if (member) expect(data).toEqual({ number: b.number, merged: a.number });
      else expect(error?.message, role).toMatch(role === 'anon' ? /permission denied/ : /^not_found$/);
      expect(await row(a.id)).toEqual(
        member ? { status: 'closed', merged_into_id: b.id } : { status: 'new', merged_into_id: null },
      );
    });
  }

  it("moves the secondary's messages, notes, files and history to the primary, in time order, and says so on both", async () => {
    const agent = clients.acmeAgent;
    const primary = await openTicket(db, 'acmeCustomer', 'Invoice missing');
    const secondary = await openTicket(db, 'acmeCustomer2', 'Where is my invoice');
    await agent.rpc('post_message', { p_ticket_id: secondary.id, p_body: 'A note on the duplicate', p_kind: 'note' });
    await agent.rpc('post_message', { p_ticket_id: primary.id, p_body: 'We are looking', p_kind: 'reply' });
    // A file of the secondary's first message, as the inbound mail records one.
    const first = (
      await db.sql('select id from messages where ticket_id = $1 order by created_at limit 1', [secondary.id])
    ).rows[0].id;
    await db.sql(
      `insert into attachments (id, message_id, ticket_id, workspace_id, uploader_id, path, file_name, size, mime_type)
       values (gen_random_uuid(), $1, $2, $3, $4, $5, 'invoice.pdf', 10, 'application/pdf')`,
      [
        first,
        secondary.id,
        ACME,
        PEOPLE.acmeCustomer2.id,
        `${ACME}/${secondary.id}/${crypto.randomUUID()}/invoice.pdf`,
      ],
    );
    const before = (
      await db.sql('select id, created_at from messages where ticket_id = any ($1)', [[primary.id, secondary.id]])
    ).rows;

    expect((await merge(agent, secondary.id, primary.id)).error).toBeNull();

    const thread = (
      await db.sql('select id, kind, body, created_at from messages where ticket_id = $1 order by created_at, id', [
        primary.id,
      ])
    ).rows;
    expect(thread.map((m) => m.body)).toEqual([
      'Please help, it is smoking.',
      'Please help, it is smoking.',
      'A note on the duplicate',
      'We are looking',
    ]);
    // The same messages, their times untouched.
    expect(thread.map((m) => [m.id, m.created_at.getTime()]).sort()).toEqual(
      before.map((m) => [m.id, m.created_at.getTime()]).sort(),
    );
    expect((await db.sql('select ticket_id from attachments where message_id = $1', [first])).rows).toEqual([
      { ticket_id: primary.id },
    ]);
    expect(
      (await db.sql('select count(*)::int as n from messages where ticket_id = $1', [secondary.id])).rows[0].n,
    ).toBe(0);
    // The primary's search finds the secondary's public words now.
    const { rows: found } = await db.sql(
      `select id from tickets where workspace_id = $1 and search @@ websearch_to_tsquery('english', 'invoice smoking')`,
      [ACME],
    );
    expect(found.map((r) => r.id)).toContain(primary.id);

    // History: the secondary's events moved (marked with its number); who merged what, on both.
    const events = async (id: string) =>
      (
        await db.sql(
          'select type, actor_id, "from", "to", from_ticket from ticket_events where ticket_id = $1 order by created_at, id',
          [id],
        )
      ).rows;
    const onPrimary = await events(primary.id);
    expect(onPrimary.filter((e) => e.from_ticket === secondary.number).map((e) => e.type)).toEqual(['created']);
    expect(onPrimary.at(-1)).toEqual({
      type: 'merged_from',
      actor_id: PEOPLE.acmeAgent.id,
      from: String(secondary.number),
      to: null,
      from_ticket: null,
    });
    expect((await events(secondary.id)).map((e) => [e.type, e.actor_id, e.from, e.to])).toEqual([
      ['status', PEOPLE.acmeAgent.id, 'new', 'closed'],
      ['merged_into', PEOPLE.acmeAgent.id, null, String(primary.number)],
    ]);
    // Another requester: recorded as a follower of the primary (issue 27 item 7), read by members only.
    expect((await db.sql('select user_id from ticket_followers where ticket_id = $1', [primary.id])).rows).toEqual([
      { user_id: PEOPLE.acmeCustomer2.id },
    ]);
    const followers = (c: SupabaseClient) => c.from('ticket_followers').select('user_id').eq('ticket_id', primary.id);
    expect((await followers(clients.acmeAgent)).data).toHaveLength(1);
    expect((await followers(clients.acmeCustomer)).data).toEqual([]);
    expect((await followers(clients.globexAdmin)).data).toEqual([]);
    const added = await clients.acmeAgent
      .from('ticket_followers')
      .insert({ ticket_id: primary.id, user_id: PEOPLE.acmeCustomer.id });
    expect(added.error?.code).toBe('42501');
  });

  it("mail to the merged thread lands on the primary: its requester's (a follower now); a stranger's is a request of its own", async () => {
    const primary = await openTicket(db, 'acmeCustomer', 'Login broken');
    const secondary = await openTicket(db, 'acmeCustomer2', 'Cannot sign in');
    expect((await merge(clients.acmeAgent, secondary.id, primary.id)).error).toBeNull();
    const mail = (from: string, recipient: string) =>
      db.service().rpc('receive_email', {
        p_provider_message_id: crypto.randomUUID(),
        p_message_id: `<${crypto.randomUUID()}@mail.test>`,
        p_from: from,
        p_workspace_slug: 'acme',
        p_ticket_id: secondary.id,
        p_subject: 'Re: Cannot sign in',
        p_body: `Still broken, says ${from}`,
        p_recipient_id: recipient,
      });
    const byFollower = await mail(PEOPLE.acmeCustomer2.email, PEOPLE.acmeCustomer2.id);
    expect(byFollower.data).toMatchObject({ outcome: 'reply', ticket_id: primary.id });
    // Someone who is neither the requester nor a follower of the primary gets a request of their own.
    const byStranger = await mail(PEOPLE.globexCustomer.email, PEOPLE.globexCustomer.id);
    expect(byStranger.data).toMatchObject({ outcome: 'request' });
    expect(byStranger.data.ticket_id).not.toBe(primary.id);
  });

  it('refuses itself, a merged or closed ticket, and another workspace', async () => {
    const agent = clients.acmeAgent;
    const [a, b, c] = [await openTicket(db), await openTicket(db), await openTicket(db)];
    expect((await merge(agent, a.id, a.id)).error?.message).toBe('merge_same');
    expect((await merge(agent, a.id, b.id)).error).toBeNull();
    // Into a merged ticket, or a merged one again: refused.
    expect((await merge(agent, c.id, a.id)).error?.message).toBe('ticket_merged');
    expect((await merge(agent, a.id, c.id)).error?.message).toBe('ticket_merged');
    await db.sql(`update tickets set status = 'closed' where id = $1`, [c.id]);
    expect((await merge(agent, c.id, b.id)).error?.message).toBe('merge_closed');
    expect((await merge(agent, b.id, c.id)).error?.message).toBe('merge_closed');
    const globex = (await db.sql(`select id from tickets where workspace_id <> $1 limit 1`, [ACME])).rows[0].id;
    expect((await merge(agent, b.id, globex)).error?.message).toBe('not_found');
    expect((await merge(clients.globexAdmin, globex, b.id)).error?.message).toBe('not_found');
    expect(await row(b.id)).toEqual({ status: 'new', merged_into_id: null });
  });

  it('closes the secondary from new, open, pending and solved (state machine), never from closed', async () => {
    for (const status of ['new', 'open', 'pending', 'solved'] as const) {
      const [a, b] = [await openTicket(db), await openTicket(db)];
      if (status !== 'new') await db.sql(`update tickets set status = $2 where id = $1`, [a.id, status]);
      expect((await merge(clients.acmeAgent, a.id, b.id)).error, status).toBeNull();
      expect(await row(a.id), status).toEqual({ status: 'closed', merged_into_id: b.id });
    }
    // The cells themselves: the team may, from every status but closed; a requester never.
    const allowed = async (from: string, actor: string) =>
      db.sql(`select private.check_transition($1, 'closed', $2, 'merge')`, [from, actor]).then(
        () => true,
        () => false,
      );
    for (const from of ['new', 'open', 'pending', 'solved', 'closed'])
      for (const actor of ['agent', 'admin', 'requester'])
        expect(await allowed(from, actor), `${from} by ${actor}`).toBe(from !== 'closed' && actor !== 'requester');
  });

  it('re-points what was merged into the secondary: every link is one hop from its final ticket', async () => {
    const [a, b, c] = [await openTicket(db), await openTicket(db), await openTicket(db)];
    expect((await merge(clients.acmeAgent, a.id, b.id)).error).toBeNull();
    expect((await merge(clients.acmeAgent, b.id, c.id)).error).toBeNull();
    expect((await row(a.id)).merged_into_id).toBe(c.id);
    expect((await row(b.id)).merged_into_id).toBe(c.id);
  });

  it('merges in bulk into one of the batch, each through merge_tickets, refusals counted by reason', async () => {
    const [a, b, c, d] = [await openTicket(db), await openTicket(db), await openTicket(db), await openTicket(db)];
    await db.sql(`update tickets set status = 'closed' where id = $1`, [c.id]);
    const bulk = (into: string, ids = [a.id, b.id, c.id, d.id]) =>
      clients.acmeAgent.rpc('bulk_update_tickets', { p_ticket_ids: ids, p_action: 'merge', p_value: into });
    // Into a ticket outside the batch: refused whole.
    expect((await bulk(d.id, [a.id, b.id])).error?.message).toBe('bad_request');
    expect((await bulk(a.id)).data).toEqual({ updated: 2, skipped: { closed: 1 } });
    expect((await row(b.id)).merged_into_id).toBe(a.id);
    expect((await row(d.id)).merged_into_id).toBe(a.id);
    expect((await row(c.id)).merged_into_id).toBeNull();
    // Again: the merged ones are skipped as such.
    expect((await bulk(a.id)).data).toEqual({ updated: 0, skipped: { closed: 1, merged: 2 } });
    expect(
      (
        await clients.acmeCustomer.rpc('bulk_update_tickets', {
          p_ticket_ids: [a.id, d.id],
          p_action: 'merge',
          p_value: a.id,
        })
      ).error?.message,
    ).toBe('not_found');
  });

  it('two merges of one pair at once, either way round: the first wins, the second is refused', async () => {
    const [a, b] = [await openTicket(db), await openTicket(db)];
    // Two sessions as PostgREST runs them: role authenticated, the caller's claims, one transaction each.
    const session = async (me: string) => {
      const c = new pg.Client({ connectionString: db.stack.dbUrl });
      c.on('error', () => undefined);
      await c.connect();
      await c.query('begin');
      await c.query(`select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`, [
        JSON.stringify({ sub: me, role: 'authenticated' }),
      ]);
      return c;
    };
    const [ca, cb] = [await session(PEOPLE.acmeAgent.id), await session(PEOPLE.acmeAdmin.id)];
    try {
      await ca.query('select public.merge_tickets($1, $2)', [a.id, b.id]);
      const [pidA, pidB] = [await backendPid(ca), await backendPid(cb)];
      const second = cb.query('select public.merge_tickets($1, $2)', [b.id, a.id]).then(
        () => 'merged',
        (e: { message: string }) => e.message,
      );
      await waitFor("the second merge queued behind the first's transaction", async () =>
        (await waitingFor(db, pidA)).some((s) => s.pid === pidB),
      );
      await ca.query('commit');
      expect(await second).toBe('ticket_merged');
      await cb.query('rollback');
    } finally {
      await Promise.all([ca.end(), cb.end()]);
    }
    expect(await row(a.id)).toEqual({ status: 'closed', merged_into_id: b.id });
    expect(await row(b.id)).toEqual({ status: 'new', merged_into_id: null });
    expect((await db.sql('select count(*)::int as n from messages where ticket_id = $1', [b.id])).rows[0].n).toBe(2);
  });
});
