// Row-level security per table, role and operation, asserted through PostgREST with signed-in users.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, GLOBEX, PEOPLE, createUser, openTicket, type Person } from '../support/db.ts';

type Role = 'anon' | Person;
const ROLES: Role[] = ['anon', 'acmeCustomer', 'globexCustomer', 'acmeAgent', 'globexAgent', 'acmeAdmin'];
type Op = 'select' | 'insert' | 'update' | 'delete';

// docs/product.md §6 as a matrix: for each table and operation on an Acme row, who may. Everyone else is
// refused (an error) or affects/sees no rows. Rows are the database's own where nobody is listed.
const MATRIX: Record<string, Record<Op, Role[]>> = {
  profiles: { select: ['acmeCustomer', 'acmeAgent', 'acmeAdmin'], insert: [], update: ['acmeAgent'], delete: [] },
  workspaces: { select: ['acmeCustomer', 'acmeAgent', 'acmeAdmin'], insert: [], update: ['acmeAdmin'], delete: [] },
  memberships: {
    select: ['acmeAgent', 'acmeAdmin'],
    insert: [], // only through accept_invitation (and create_workspace for its creator)
    update: ['acmeAdmin'],
    delete: ['acmeAdmin'],
  },
  invitations: { select: ['acmeAdmin'], insert: ['acmeAdmin'], update: ['acmeAdmin'], delete: ['acmeAdmin'] },
  tickets: {
    select: ['acmeCustomer', 'acmeAgent', 'acmeAdmin'],
    insert: [],
    update: ['acmeAgent', 'acmeAdmin'],
    delete: [],
  },
  messages: {
    select: ['acmeCustomer', 'acmeAgent', 'acmeAdmin'],
    insert: ['acmeCustomer', 'acmeAgent', 'acmeAdmin'],
    update: [],
    delete: [],
  },
  ticket_events: { select: ['acmeAgent', 'acmeAdmin'], insert: [], update: [], delete: [] },
  canned_replies: {
    select: ['acmeAgent', 'acmeAdmin'],
    insert: ['acmeAdmin'],
    update: ['acmeAdmin'],
    delete: ['acmeAdmin'],
  },
};

describe('row-level security matrix', () => {
  const db = dbFixture();
  const clients = {} as Record<Role, SupabaseClient>;
  let acmeTicket: { id: string; number: number };
  let counts: Record<string, number>;

  beforeAll(async () => {
    clients.anon = db.anon();
    for (const p of Object.keys(PEOPLE) as Person[]) clients[p] = await db.as(p);
    acmeTicket = await openTicket(db, 'acmeCustomer', 'RLS probe');
    await (await db.as('acmeAgent')).rpc('post_message', {
      p_ticket_id: acmeTicket.id,
      p_body: 'Internal only',
      p_kind: 'note',
    });
    const q = async (sql: string, params: unknown[] = []) => (await db.sql(sql, params)).rows[0].n as number;
    counts = {
      acmeTickets: await q('select count(*)::int n from tickets where workspace_id = $1', [ACME]),
      globexTickets: await q('select count(*)::int n from tickets where workspace_id = $1', [GLOBEX]),
      acmeCustomerTickets: await q('select count(*)::int n from tickets where requester_id = $1', [
        PEOPLE.acmeCustomer.id,
      ]),
      acmeMessages: await q('select count(*)::int n from messages where workspace_id = $1', [ACME]),
      acmeCustomerReplies: await q(
        `select count(*)::int n from messages m join tickets t on t.id = m.ticket_id where t.requester_id = $1 and m.kind = 'reply'`,
        [PEOPLE.acmeCustomer.id],
      ),
    };
  });

  const select = async (role: Role, table: string, columns = '*') => {
    const { data, error } = await clients[role].from(table).select(columns);
    return { rows: (data ?? []) as unknown as Record<string, unknown>[], error };
  };

  describe('select', () => {
    it('tickets: requesters see their own, members their workspace, anon nothing', async () => {
      expect((await select('anon', 'tickets')).rows).toHaveLength(0);
      const customer = (await select('acmeCustomer', 'tickets')).rows;
      expect(customer).toHaveLength(counts.acmeCustomerTickets);
      expect(customer.every((t) => t.requester_id === PEOPLE.acmeCustomer.id)).toBe(true);
      const globexCustomer = (await select('globexCustomer', 'tickets')).rows;
      expect(
        globexCustomer.every((t) => t.requester_id === PEOPLE.globexCustomer.id && t.workspace_id === GLOBEX),
      ).toBe(true);
      for (const r of ['acmeAgent', 'acmeAdmin'] as Role[]) {
        const rows = (await select(r, 'tickets')).rows;
        expect(rows).toHaveLength(counts.acmeTickets);
        expect(rows.every((t) => t.workspace_id === ACME)).toBe(true);
      }
      const globexAgent = (await select('globexAgent', 'tickets')).rows;
      expect(globexAgent).toHaveLength(counts.globexTickets);
      expect(globexAgent.every((t) => t.workspace_id === GLOBEX)).toBe(true);
    });

    it('messages: requesters never see notes; agents see nothing of another workspace', async () => {
      expect((await select('anon', 'messages')).rows).toHaveLength(0);
      const customer = (await select('acmeCustomer', 'messages')).rows;
      expect(customer).toHaveLength(counts.acmeCustomerReplies);
      expect(customer.some((m) => m.kind === 'note')).toBe(false);
      const agent = (await select('acmeAgent', 'messages')).rows;
      expect(agent).toHaveLength(counts.acmeMessages);
      expect(agent.some((m) => m.kind === 'note')).toBe(true);
      expect((await select('globexAgent', 'messages')).rows.every((m) => m.workspace_id === GLOBEX)).toBe(true);
      expect((await select('globexCustomer', 'messages')).rows.every((m) => m.workspace_id === GLOBEX)).toBe(true);
    });

    it('workspaces: nobody lists them; members and requesters read their own; nobody reads the counter', async () => {
      const own: Partial<Record<Role, string[]>> = {
        anon: [],
        acmeCustomer: ['acme'],
        globexCustomer: ['globex'],
        acmeAgent: ['acme'],
        globexAgent: ['globex'],
        acmeAdmin: ['acme'],
      };
      for (const r of ROLES) {
        const { data } = await clients[r].from('workspaces').select('slug, name');
        expect((data ?? []).map((w) => w.slug).sort(), r).toEqual(own[r]);
        const hidden = await clients[r].from('workspaces').select('ticket_seq');
        expect(hidden.error?.code).toBe('42501');
      }
    });

    it('memberships, ticket history and canned replies: members of the workspace only', async () => {
      for (const table of ['memberships', 'ticket_events', 'canned_replies']) {
        for (const r of ['anon', 'acmeCustomer', 'globexCustomer'] as Role[]) {
          const { rows } = await select(r, table);
          expect(rows, `${r} on ${table}`).toHaveLength(0);
        }
        for (const [r, ws] of [
          ['acmeAgent', ACME],
          ['acmeAdmin', ACME],
          ['globexAgent', GLOBEX],
        ] as [Role, string][]) {
          const { rows } = await select(r, table);
          expect(
            rows.every((x) => x.workspace_id === ws),
            `${r} on ${table}`,
          ).toBe(true);
        }
      }
      expect((await select('acmeAgent', 'canned_replies')).rows.length).toBeGreaterThan(0);
    });

    it('invitations: admins only', async () => {
      await db.sql(
        `insert into invitations (workspace_id, email, token_hash, invited_by) values ($1, 'new@acme.test', repeat('a', 64), $2)`,
        [ACME, PEOPLE.acmeAdmin.id],
      );
      for (const r of ['anon', 'acmeCustomer', 'acmeAgent', 'globexAgent'] as Role[])
        expect((await select(r, 'invitations')).rows, r).toHaveLength(0);
      expect((await select('acmeAdmin', 'invitations')).rows.map((i) => i.email).sort()).toEqual([
        'new@acme.test',
        'newagent@acme.test',
      ]);
    });

    it('profiles: your own and the people you work with, not strangers', async () => {
      const names = async (r: Role) => (await select(r, 'profiles')).rows.map((p) => p.user_id);
      expect(await names('anon')).toEqual([]);
      const customer = await names('acmeCustomer');
      expect(customer).toContain(PEOPLE.acmeCustomer.id);
      expect(customer).toContain(PEOPLE.acmeAgent.id); // the team answering them
      expect(customer).not.toContain(PEOPLE.globexAgent.id);
      expect(customer).not.toContain(PEOPLE.acmeCustomer2.id);
      const agent = await names('acmeAgent');
      expect(agent).toContain(PEOPLE.acmeCustomer.id);
      expect(agent).not.toContain(PEOPLE.globexCustomer.id);
    });
  });

  describe('insert, update, delete', () => {
    it('tickets are created only through create_ticket; nobody inserts or deletes directly', async () => {
      for (const r of ROLES) {
        const ins = await clients[r]
          .from('tickets')
          .insert({ workspace_id: ACME, requester_id: PEOPLE.acmeCustomer.id, subject: 'x', number: 999 });
        expect(ins.error, r).not.toBeNull();
        const del = await clients[r].from('tickets').delete().eq('id', acmeTicket.id).select();
        expect(del.data ?? [], r).toHaveLength(0);
      }
      expect((await db.sql('select 1 from tickets where id = $1', [acmeTicket.id])).rowCount).toBe(1);
      expect(
        (await clients.anon.rpc('create_ticket', { p_workspace_slug: 'acme', p_subject: 'x', p_body: 'y' })).error,
      ).not.toBeNull();
    });

    it('tickets: agents of the workspace set priority and assignee; others change nothing', async () => {
      for (const r of ['anon', 'globexAgent', 'globexCustomer', 'acmeCustomer2'] as Role[]) {
        const { data } = await clients[r]
          .from('tickets')
          .update({ priority: 'urgent' })
          .eq('id', acmeTicket.id)
          .select();
        expect(data ?? [], r).toHaveLength(0);
      }
      const cust = await clients.acmeCustomer
        .from('tickets')
        .update({ priority: 'urgent' })
        .eq('id', acmeTicket.id)
        .select();
      expect(cust.error).toMatchObject({ message: 'forbidden' });
      const agent = await clients.acmeAgent
        .from('tickets')
        .update({ priority: 'high', assignee_id: PEOPLE.acmeAgent2.id })
        .eq('id', acmeTicket.id)
        .select('priority, assignee_id');
      expect(agent.data).toEqual([{ priority: 'high', assignee_id: PEOPLE.acmeAgent2.id }]);
      const outsider = await clients.acmeAgent
        .from('tickets')
        .update({ assignee_id: PEOPLE.globexAgent.id })
        .eq('id', acmeTicket.id);
      expect(outsider.error).toMatchObject({ message: 'assignee_not_member' });
      const bookkeeping = await clients.acmeAgent
        .from('tickets')
        .update({ first_response_at: null })
        .eq('id', acmeTicket.id);
      expect(bookkeeping.error?.code).toBe('42501');
    });

    it('messages: members write replies and notes, requesters reply to their own requests only', async () => {
      const post = (r: Role, kind: string) =>
        clients[r].from('messages').insert({
          ticket_id: acmeTicket.id,
          author_id: r === 'anon' ? PEOPLE.acmeCustomer.id : PEOPLE[r].id,
          kind,
          body: 'hi',
        });
      expect((await post('anon', 'reply')).error).not.toBeNull();
      expect((await post('globexAgent', 'reply')).error).not.toBeNull();
      expect((await post('globexCustomer', 'reply')).error).not.toBeNull();
      expect((await post('acmeCustomer', 'note')).error).not.toBeNull();
      expect((await post('acmeCustomer', 'reply')).error).toBeNull();
      expect((await post('acmeAgent', 'note')).error).toBeNull();
      const forged = await clients.acmeAgent
        .from('messages')
        .insert({ ticket_id: acmeTicket.id, author_id: PEOPLE.acmeAdmin.id, kind: 'reply', body: 'as admin' });
      expect(forged.error).not.toBeNull();
      for (const r of ROLES) {
        const upd = await clients[r]
          .from('messages')
          .update({ body: 'changed' })
          .eq('ticket_id', acmeTicket.id)
          .select();
        expect(upd.data ?? [], r).toHaveLength(0);
        const del = await clients[r].from('messages').delete().eq('ticket_id', acmeTicket.id).select();
        expect(del.data ?? [], r).toHaveLength(0);
      }
    });

    it('memberships: admins manage them (members join by invitation), never removing or demoting the last admin', async () => {
      for (const r of ['anon', 'acmeCustomer', 'acmeAgent', 'globexAdmin', 'acmeAdmin'] as Role[]) {
        const ins = await clients[r]
          .from('memberships')
          .insert({ workspace_id: ACME, user_id: PEOPLE.acmeCustomer2.id, role: 'agent' });
        expect(ins.error, r).not.toBeNull();
      }
      await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'agent')`, [
        ACME,
        PEOPLE.acmeCustomer2.id,
      ]);
      const agentDemotes = await clients.acmeAgent
        .from('memberships')
        .update({ role: 'agent' })
        .eq('user_id', PEOPLE.acmeAdmin.id)
        .select();
      expect(agentDemotes.data ?? []).toHaveLength(0);
      const demoteLast = await clients.acmeAdmin
        .from('memberships')
        .update({ role: 'agent' })
        .eq('workspace_id', ACME)
        .eq('user_id', PEOPLE.acmeAdmin.id);
      expect(demoteLast.error).toMatchObject({ message: 'last_admin' });
      const removeLast = await clients.acmeAdmin
        .from('memberships')
        .delete()
        .eq('workspace_id', ACME)
        .eq('user_id', PEOPLE.acmeAdmin.id);
      expect(removeLast.error).toMatchObject({ message: 'last_admin' });
      const remove = await clients.acmeAdmin
        .from('memberships')
        .delete()
        .eq('workspace_id', ACME)
        .eq('user_id', PEOPLE.acmeCustomer2.id)
        .select();
      expect(remove.data).toHaveLength(1);
    });

    it('workspaces: created through create_workspace; only admins rename; slugs are validated and unique', async () => {
      const created = await clients.acmeCustomer.rpc('create_workspace', { p_name: 'Initech Help', p_slug: 'initech' });
      expect(created.error).toBeNull();
      const taken = await clients.acmeCustomer2.rpc('create_workspace', { p_name: 'Copy', p_slug: 'initech' });
      expect(taken.error).toMatchObject({ message: 'slug_taken' });
      const reserved = await clients.acmeCustomer2.rpc('create_workspace', { p_name: 'Bad', p_slug: 'admin' });
      expect(reserved.error?.code).toBe('23514');
      expect((await clients.anon.rpc('create_workspace', { p_name: 'x', p_slug: 'anon-ws' })).error).not.toBeNull();
      for (const r of ['acmeAgent', 'globexAdmin', 'acmeCustomer2'] as Role[]) {
        const { data } = await clients[r].from('workspaces').update({ name: 'Hacked' }).eq('id', ACME).select('name');
        expect(data ?? [], r).toHaveLength(0);
      }
      const renamed = await clients.acmeAdmin
        .from('workspaces')
        .update({ name: 'Acme Help' })
        .eq('id', ACME)
        .select('name');
      expect(renamed.data).toEqual([{ name: 'Acme Help' }]);
      const tooLong = await clients.acmeAdmin
        .from('workspaces')
        .update({ name: 'x'.repeat(81) })
        .eq('id', ACME);
      expect(tooLong.error?.code).toBe('23514');
    });

    it('canned replies: admins manage, agents read, others nothing', async () => {
      for (const r of ['anon', 'acmeCustomer', 'acmeAgent', 'globexAdmin'] as Role[]) {
        const ins = await clients[r].from('canned_replies').insert({ workspace_id: ACME, title: 't', body: 'b' });
        expect(ins.error, r).not.toBeNull();
      }
      const ok = await clients.acmeAdmin
        .from('canned_replies')
        .insert({ workspace_id: ACME, title: 'Hello', body: 'Hi there' })
        .select('id, created_by');
      expect(ok.error).toBeNull();
      expect(ok.data![0].created_by).toBe(PEOPLE.acmeAdmin.id);
      const del = await clients.acmeAgent.from('canned_replies').delete().eq('id', ok.data![0].id).select();
      expect(del.data ?? []).toHaveLength(0);
      expect(
        (await clients.acmeAdmin.from('canned_replies').delete().eq('id', ok.data![0].id).select()).data,
      ).toHaveLength(1);
    });

    it('profiles: people rename only themselves, within 1–60 characters', async () => {
      const other = await clients.acmeAgent
        .from('profiles')
        .update({ display_name: 'Hacked' })
        .eq('user_id', PEOPLE.acmeCustomer.id)
        .select();
      expect(other.data ?? []).toHaveLength(0);
      expect(
        (
          await clients.acmeAgent
            .from('profiles')
            .update({ display_name: 'Alexandra' })
            .eq('user_id', PEOPLE.acmeAgent.id)
            .select('display_name')
        ).data,
      ).toEqual([{ display_name: 'Alexandra' }]);
      expect(
        (await clients.acmeAgent.from('profiles').update({ display_name: '' }).eq('user_id', PEOPLE.acmeAgent.id)).error
          ?.code,
      ).toBe('23514');
    });
  });

  describe('matrix: tables × roles × operations through PostgREST', () => {
    const hex = () =>
      [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const one = async (sql: string, params: unknown[]) => (await db.sql(sql, params)).rows[0];
    const idOf = (r: Role) => (r === 'anon' ? crypto.randomUUID() : PEOPLE[r].id);
    // Runs after the narrative tests above, which count rows; its own fixtures come here.
    beforeAll(async () => {
      await db.sql(
        `insert into invitations (workspace_id, email, token_hash, invited_by) values ($1, 'matrix@acme.test', $2, $3)`,
        [ACME, hex(), PEOPLE.acmeAdmin.id],
      );
    });

    interface Case {
      key: string;
      scope?: Record<string, string>;
      /** The Acme rows the caller sees. */
      see(c: SupabaseClient): PromiseLike<{ data: unknown[] | null }>;
      insert(c: SupabaseClient, r: Role): PromiseLike<{ error: unknown }>;
      /** A target row (as the platform) for update and delete. */
      fresh(): Promise<string>;
      patch: Record<string, unknown>;
      changed(id: string): Promise<boolean>;
    }

    const CASES: Record<string, Case> = {
      profiles: {
        key: 'user_id',
        see: (c) => c.from('profiles').select('user_id').eq('user_id', PEOPLE.acmeAgent.id),
        insert: (c, r) => c.from('profiles').insert({ user_id: idOf(r), display_name: 'Me again' }),
        fresh: async () => {
          await db.sql(`update profiles set display_name = 'Alex Agent' where user_id = $1`, [PEOPLE.acmeAgent.id]);
          return PEOPLE.acmeAgent.id;
        },
        patch: { display_name: 'Renamed' },
        changed: async (id) =>
          (await one('select display_name from profiles where user_id = $1', [id])).display_name === 'Renamed',
      },
      workspaces: {
        key: 'id',
        see: (c) => c.from('workspaces').select('slug, name').eq('slug', 'acme'),
        insert: (c, r) => c.from('workspaces').insert({ slug: `ws-${String(r).toLowerCase()}`, name: 'Mine' }),
        fresh: async () => {
          const ws = (
            await one(`insert into workspaces (slug, name) values ($1, 'Throwaway') returning id`, [
              `tmp-${hex().slice(0, 10)}`,
            ])
          ).id;
          await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'admin')`, [
            ws,
            PEOPLE.acmeAdmin.id,
          ]);
          return ws;
        },
        patch: { name: 'Renamed' },
        changed: async (id) => (await one('select name from workspaces where id = $1', [id])).name === 'Renamed',
      },
      memberships: {
        key: 'user_id',
        scope: { workspace_id: ACME },
        see: (c) => c.from('memberships').select('user_id').eq('workspace_id', ACME),
        insert: async (c) =>
          c.from('memberships').insert({ workspace_id: ACME, user_id: await createUser(db), role: 'agent' }),
        fresh: async () => {
          const id = await createUser(db);
          await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'agent')`, [ACME, id]);
          return id;
        },
        patch: { role: 'admin' },
        changed: async (id) =>
          (await one('select role from memberships where workspace_id = $1 and user_id = $2', [ACME, id]))?.role ===
          'admin',
      },
      invitations: {
        key: 'id',
        see: (c) => c.from('invitations').select('id').eq('workspace_id', ACME),
        insert: (c, r) =>
          c
            .from('invitations')
            .insert({ workspace_id: ACME, email: 'invitee@example.test', token_hash: hex(), invited_by: idOf(r) }),
        fresh: async () =>
          (
            await one(
              `insert into invitations (workspace_id, email, token_hash, invited_by) values ($1, 'invitee@example.test', $2, $3) returning id`,
              [ACME, hex(), PEOPLE.acmeAdmin.id],
            )
          ).id,
        patch: { revoked_at: new Date().toISOString() },
        changed: async (id) =>
          (await one('select revoked_at from invitations where id = $1', [id])).revoked_at !== null,
      },
      tickets: {
        key: 'id',
        see: (c) => c.from('tickets').select('id').eq('id', acmeTicket.id),
        insert: (c, r) =>
          c.from('tickets').insert({ workspace_id: ACME, requester_id: idOf(r), subject: 'Direct insert' }),
        fresh: async () =>
          (
            await one(
              `insert into tickets (workspace_id, requester_id, subject) values ($1, $2, 'Matrix target') returning id`,
              [ACME, PEOPLE.acmeCustomer.id],
            )
          ).id,
        patch: { priority: 'high' },
        changed: async (id) => (await one('select priority from tickets where id = $1', [id])).priority === 'high',
      },
      messages: {
        key: 'id',
        see: (c) => c.from('messages').select('id').eq('ticket_id', acmeTicket.id).eq('kind', 'reply'),
        insert: (c) => c.from('messages').insert({ ticket_id: acmeTicket.id, kind: 'reply', body: 'Matrix reply' }),
        fresh: async () =>
          (
            await one(
              `insert into messages (ticket_id, author_id, kind, body) values ($1, $2, 'reply', 'Target') returning id`,
              [acmeTicket.id, PEOPLE.acmeCustomer.id],
            )
          ).id,
        patch: { body: 'Rewritten' },
        changed: async (id) => (await one('select body from messages where id = $1', [id])).body === 'Rewritten',
      },
      ticket_events: {
        key: 'id',
        see: (c) => c.from('ticket_events').select('id').eq('ticket_id', acmeTicket.id),
        insert: (c) =>
          c
            .from('ticket_events')
            .insert({ ticket_id: acmeTicket.id, workspace_id: ACME, type: 'status', from: 'new', to: 'closed' }),
        fresh: async () =>
          String(
            (await one(`select id from ticket_events where ticket_id = $1 and type = 'created'`, [acmeTicket.id])).id,
          ),
        patch: { to: 'closed' },
        changed: async (id) => (await one('select "to" from ticket_events where id = $1', [id])).to === 'closed',
      },
      canned_replies: {
        key: 'id',
        see: (c) => c.from('canned_replies').select('id').eq('workspace_id', ACME),
        insert: (c) => c.from('canned_replies').insert({ workspace_id: ACME, title: 'Matrix', body: 'Hello' }),
        fresh: async () =>
          (
            await one(
              `insert into canned_replies (workspace_id, title, body) values ($1, 'Target ' || gen_random_uuid(), 'Body') returning id`,
              [ACME],
            )
          ).id,
        patch: { title: 'Renamed' },
        changed: async (id) => (await one('select title from canned_replies where id = $1', [id])).title === 'Renamed',
      },
    };

    const exists = async (table: string, t: Case, id: string) =>
      ((
        await db.sql(
          `select 1 from public.${table} where ${t.key}::text = $1${t.scope ? ' and workspace_id = $2' : ''}`,
          t.scope ? [id, t.scope.workspace_id] : [id],
        )
      ).rowCount ?? 0) > 0;
    // biome-ignore lint/suspicious/noExplicitAny: a filter builder of whichever table the case names
    const target = (q: any, t: Case, id: string) => {
      let f = q.eq(t.key, id);
      for (const [k, v] of Object.entries(t.scope ?? {})) f = f.eq(k, v);
      return f;
    };

    for (const [table, ops] of Object.entries(MATRIX)) {
      const t = CASES[table];
      for (const op of ['select', 'insert', 'update', 'delete'] as Op[]) {
        for (const role of ROLES) {
          const allowed = ops[op].includes(role);
          it(`${table} ${op} by ${role}: ${allowed ? 'allowed' : 'refused'}`, async () => {
            const c = clients[role];
            if (op === 'select') {
              const { data } = await t.see(c);
              if (allowed) expect((data ?? []).length).toBeGreaterThan(0);
              else expect(data ?? []).toHaveLength(0);
            } else if (op === 'insert') {
              const { error } = await t.insert(c, role);
              if (allowed) expect(error).toBeNull();
              else expect(error).not.toBeNull();
            } else if (op === 'update') {
              const id = await t.fresh();
              const { error } = await target(c.from(table).update(t.patch), t, id);
              if (allowed) expect(error).toBeNull();
              expect(await t.changed(id)).toBe(allowed);
            } else {
              const id = await t.fresh();
              const { error } = await target(c.from(table).delete(), t, id);
              if (allowed) expect(error).toBeNull();
              expect(await exists(table, t, id)).toBe(!allowed);
            }
          });
        }
      }
    }
  });
});
