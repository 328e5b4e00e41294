// The state machine in one place (private.check_transition, with actor and reason) and the rules of
// issue 13: what requesters can read of a ticket, who writes memberships and the who/when columns,
// and what visitors can list.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ACME, GLOBEX, PEOPLE, openTicket, type DbStack, type Person } from '../support/db.ts';
import { dbFixture } from '../support/fixture.ts';

describe('database rules', () => {
  const db = dbFixture();

  /** SQL on a session of its own as `person`, as PostgREST runs a request (role and JWT claims). */
  async function asPerson<T>(person: Person, fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const c = new pg.Client({ connectionString: db.stack.dbUrl });
    await c.connect();
    try {
      await c.query('begin');
      await c.query('set local role authenticated');
      await c.query(`select set_config('request.jwt.claims', $1, true)`, [
        JSON.stringify({ sub: PEOPLE[person].id, role: 'authenticated' }),
      ]);
      return await fn(c);
    } finally {
      await c.query('rollback').catch(() => undefined);
      await c.end();
    }
  }

  describe('status changes', () => {
    it('a requester reopens by replying only: no session setting stands in for the reason', async () => {
      const t = await openTicket(db);
      await db.sql(`update tickets set status = 'solved' where id = $1`, [t.id]);
      const err = await asPerson('acmeCustomer', async (c) => {
        // The flag post_message once set for the triggers to read.
        await c.query(`select set_config('tend.reply_reopen', 'on', true)`);
        return c.query(`update public.tickets set status = 'open' where id = $1`, [t.id]).catch((e) => e);
      });
      expect(err).toMatchObject({ message: 'invalid_transition', detail: 'solved→open' });
      // Replying is the reason that reopens.
      const customer = await db.as('acmeCustomer');
      expect((await customer.rpc('post_message', { p_ticket_id: t.id, p_body: 'Broken again' })).error).toBeNull();
      expect((await db.sql('select status from tickets where id = $1', [t.id])).rows[0].status).toBe('open');
    });

    it('one function decides every move, by actor and reason', async () => {
      const check = (from: string, to: string, actor: string, reason: string) =>
        db
          .sql(`select private.check_transition($1, $2, $3, $4)`, [from, to, actor, reason])
          .then(() => 'allowed')
          .catch((e: Error) => e.message);
      expect(await check('solved', 'open', 'requester', 'reply')).toBe('allowed');
      expect(await check('solved', 'open', 'requester', 'edit')).toBe('invalid_transition');
      expect(await check('pending', 'open', 'requester', 'reply')).toBe('allowed');
      expect(await check('new', 'open', 'requester', 'reply')).toBe('invalid_transition');
      expect(await check('solved', 'closed', 'system', 'auto_close')).toBe('allowed');
      expect(await check('solved', 'closed', 'agent', 'edit')).toBe('invalid_transition');
      expect(await check('closed', 'open', 'admin', 'edit')).toBe('invalid_transition');
      // No function reads a setting of the application's own (tend.*) any more; the one marker Tend's own
      // writes leave (docs/decisions/102-tend-says-so.md) is read by its one reader and written by its pair.
      const { rows } = await db.sql(
        `select p.proname from pg_proc p where p.pronamespace in ('public'::regnamespace, 'private'::regnamespace)
            and p.prosrc ~ 'current_setting\\(''tend\\.'`,
      );
      expect(rows).toEqual([]);
      const marker = await db.sql(
        `select p.proname from pg_proc p where p.pronamespace in ('public'::regnamespace, 'private'::regnamespace)
            and p.prosrc ~ '''private\\.tend_acting''' order by 1`,
      );
      expect(marker.rows.map((r) => r.proname)).toEqual(['tend_act', 'tend_acting', 'tend_done']);
    });

    it('statuses, priorities and roles are enums: one list, in the database', async () => {
      const { rows } = await db.sql(
        `select t.typname, array(select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder) as labels
           from pg_type t where t.typnamespace = 'public'::regnamespace and t.typtype = 'e' order by 1`,
      );
      expect(rows).toEqual([
        { typname: 'assignment_mode', labels: ['off', 'round_robin', 'least_open'] },
        { typname: 'csat_rating', labels: ['good', 'okay', 'bad'] },
        { typname: 'help_article_status', labels: ['draft', 'published'] },
        { typname: 'member_role', labels: ['admin', 'agent'] },
        { typname: 'sla_target', labels: ['first_response', 'next_response', 'resolution'] },
        { typname: 'ticket_field_kind', labels: ['text', 'number', 'date', 'dropdown', 'checkbox'] },
        { typname: 'ticket_priority', labels: ['low', 'normal', 'high', 'urgent'] },
        { typname: 'ticket_status', labels: ['new', 'open', 'pending', 'solved', 'closed'] },
      ]);
      const t = await openTicket(db);
      const agent = await db.as('acmeAgent');
      const bad = await agent.from('tickets').update({ priority: 'whenever' }).eq('id', t.id);
      expect(bad.error).toMatchObject({ code: '22P02' });
    });
  });

  describe('what requesters read', () => {
    it('a note leaves the ticket row as it was: no column and no change event tells the requester', async () => {
      const t = await openTicket(db);
      const agent = await db.as('acmeAgent');
      expect((await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'First look' })).error).toBeNull();
      // xmin is the row version: unchanged means no UPDATE, so realtime has nothing to send either.
      const row = async () =>
        (await db.sql('select xmin::text as version, t.* from tickets t where id = $1', [t.id])).rows[0];
      const seenBy = async (person: Person) =>
        (await (await db.as(person)).from('tickets').select('*').eq('id', t.id).single()).data;
      const before = { row: await row(), requester: await seenBy('acmeCustomer'), agent: await seenBy('acmeAgent') };

      expect(
        (await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'VIP, careful', p_kind: 'note' })).error,
      ).toBeNull();
      const direct = await agent.from('messages').insert({ ticket_id: t.id, kind: 'note', body: 'Refund approved' });
      expect(direct.error).toBeNull();

      expect(await row()).toEqual(before.row);
      expect(await seenBy('acmeCustomer')).toEqual(before.requester);
      expect(await seenBy('acmeAgent')).toEqual(before.agent);
      // The team has the notes in the thread; the requester doesn't.
      const thread = async (person: Person) =>
        (await (await db.as(person)).from('messages').select('kind').eq('ticket_id', t.id)).data?.map((m) => m.kind);
      expect(await thread('acmeAgent')).toEqual(['reply', 'reply', 'note', 'note']);
      expect(await thread('acmeCustomer')).toEqual(['reply', 'reply']);

      // A public reply is activity the requester may see.
      const { data: reply } = await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Refund is on its way' });
      const after = await seenBy('acmeCustomer');
      expect(after!.last_message_at).toBe(reply.created_at);
      expect(after!.updated_at > before.requester!.updated_at).toBe(true);
    });
  });

  describe('who writes who and when', () => {
    it('membership comes from accepting an invitation only: no admin adds anyone, here or elsewhere', async () => {
      const count = async () => (await db.sql('select count(*)::int n from memberships')).rows[0].n;
      const n = await count();
      const cases: [Person, string, string][] = [
        ['acmeAdmin', ACME, PEOPLE.globexAdmin.id], // the Globex admin, added to Acme without consent
        ['acmeAdmin', ACME, PEOPLE.acmeCustomer.id],
        ['globexAdmin', GLOBEX, PEOPLE.acmeAgent.id],
        ['acmeAgent', ACME, PEOPLE.acmeCustomer2.id],
        ['acmeCustomer', ACME, PEOPLE.acmeCustomer.id],
      ];
      for (const [who, workspace, user] of cases) {
        const { error } = await (await db.as(who))
          .from('memberships')
          .insert({ workspace_id: workspace, user_id: user, role: 'admin' });
        expect(error?.code, who).toBe('42501');
      }
      expect(
        (
          await db
            .anon()
            .from('memberships')
            .insert({ workspace_id: ACME, user_id: PEOPLE.acmeCustomer.id, role: 'agent' })
        ).error,
      ).not.toBeNull();
      expect(await count()).toBe(n);
      // The creator's admin row comes with the workspace.
      const creator = await db.as('acmeCustomer2');
      const { data: ws, error } = await creator.rpc('create_workspace', {
        p_name: 'Initech',
        p_slug: `initech-${Date.now()}`,
      });
      expect(error).toBeNull();
      const { rows } = await db.sql('select user_id, role from memberships where workspace_id = $1', [ws.id]);
      expect(rows).toEqual([{ user_id: PEOPLE.acmeCustomer2.id, role: 'admin' }]);
    });

    it("canned replies: the author and the time are the database's", async () => {
      const admin = await db.as('acmeAdmin');
      const forged = await admin.from('canned_replies').insert({
        workspace_id: ACME,
        title: 'Forged',
        body: 'x',
        created_by: PEOPLE.acmeAgent.id,
      });
      expect(forged.error?.code).toBe('42501');
      const backdated = await admin
        .from('canned_replies')
        .insert({ workspace_id: ACME, title: 'Backdated', body: 'x', created_at: '2001-01-01T00:00:00Z' });
      expect(backdated.error?.code).toBe('42501');
      const { data, error } = await admin
        .from('canned_replies')
        .insert({ workspace_id: ACME, title: 'Welcome', body: 'Hello!' })
        .select('id, created_by, created_at')
        .single();
      expect(error).toBeNull();
      expect(data!.created_by).toBe(PEOPLE.acmeAdmin.id);
      expect(Math.abs(Date.parse(data!.created_at) - Date.now())).toBeLessThan(60_000);
      for (const patch of [{ created_by: PEOPLE.acmeAgent.id }, { created_at: '2001-01-01T00:00:00Z' }]) {
        expect((await admin.from('canned_replies').update(patch).eq('id', data!.id)).error?.code).toBe('42501');
      }
      expect((await admin.from('canned_replies').update({ title: 'Hi' }).eq('id', data!.id)).error).toBeNull();
    });

    it('invitations: revoked stays revoked, the expiry is set by the database, a resend runs 7 days from now', async () => {
      const admin = await db.as('acmeAdmin');
      const invite = async () =>
        (
          await db.sql(
            `insert into invitations (workspace_id, email, token_hash, invited_by, expires_at)
             values ($1, 'later@example.test', $2, $3, now() + interval '1 day') returning id`,
            [ACME, crypto.randomUUID().replace(/-/g, '').repeat(2), PEOPLE.acmeAdmin.id],
          )
        ).rows[0].id as string;
      const row = async (id: string) =>
        (await db.sql('select revoked_at, expires_at from invitations where id = $1', [id])).rows[0];

      const id = await invite();
      const moved = await admin.from('invitations').update({ expires_at: '2099-01-01T00:00:00Z' }).eq('id', id);
      expect(moved.error?.code).toBe('42501');
      // Revoked now, whatever time the admin sends.
      expect(
        (await admin.from('invitations').update({ revoked_at: '2099-01-01T00:00:00Z' }).eq('id', id)).error,
      ).toBeNull();
      const revoked = await row(id);
      expect(Math.abs(revoked.revoked_at.getTime() - Date.now())).toBeLessThan(60_000);
      // And for good: no un-revoking, no resending.
      const unrevoke = await admin.from('invitations').update({ revoked_at: null }).eq('id', id);
      expect(unrevoke.error).toMatchObject({ code: 'P0001', message: 'invitation_invalid', details: 'revoked' });
      const resendRevoked = await admin
        .from('invitations')
        .update({ token_hash: 'c'.repeat(64) })
        .eq('id', id);
      expect(resendRevoked.error).toMatchObject({ message: 'invitation_invalid' });
      expect((await row(id)).revoked_at).toEqual(revoked.revoked_at);

      const pending = await invite();
      expect(
        (
          await admin
            .from('invitations')
            .update({ token_hash: 'd'.repeat(64) })
            .eq('id', pending)
        ).error,
      ).toBeNull();
      const days = ((await row(pending)).expires_at.getTime() - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(6.9);
      expect(days).toBeLessThanOrEqual(7);
    });
  });

  describe('what visitors list', () => {
    it('nobody lists workspaces: a portal gets its one by slug, signed-in users read theirs', async () => {
      const listed = async (c: ReturnType<DbStack['anon']>) =>
        ((await c.from('workspaces').select('slug').order('slug')).data ?? []).map((w) => w.slug);
      const anon = db.anon();
      expect(await listed(anon)).toEqual([]);
      expect((await anon.from('workspaces').select('id').eq('slug', 'acme')).data ?? []).toEqual([]);
      // The portal's look-up, for anyone: one workspace, by its slug.
      const portal = await anon.rpc('portal_workspace', { p_slug: 'acme' }).single();
      expect(portal.error).toBeNull();
      expect(portal.data).toEqual({ id: ACME, slug: 'acme', name: 'Acme Support' });
      expect((await anon.rpc('portal_workspace', { p_slug: 'nope' })).data).toEqual([]);

      expect(await listed(await db.as('acmeAgent'))).toEqual(['acme']);
      expect(await listed(await db.as('globexAdmin'))).toEqual(['globex']);
      expect(await listed(await db.as('acmeCustomer'))).toEqual(['acme']); // has requests there
      // A signed-in user elsewhere: no list of the others, the portal look-up still works.
      const elsewhere = await db.as('globexCustomer');
      expect(await listed(elsewhere)).toEqual(['globex']);
      expect((await elsewhere.rpc('portal_workspace', { p_slug: 'acme' }).single()).data).toMatchObject({ id: ACME });
    });
  });
});
