// The state machine in one place (private.check_transition, with actor and reason) and the rules of
// issue 13: what requesters can read of a ticket, who writes memberships and the who/when columns,
// and what visitors can list.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEOPLE, openTicket, startDbStack, type DbStack, type Person } from '../support/db.ts';

describe('database rules', () => {
  let db: DbStack;
  beforeAll(async () => {
    db = await startDbStack();
  });
  afterAll(() => db?.teardown());

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
      // No function reads a setting of the application's own (tend.*) any more.
      const { rows } = await db.sql(
        `select p.proname from pg_proc p where p.pronamespace in ('public'::regnamespace, 'private'::regnamespace)
            and p.prosrc ~ 'current_setting\\(''tend\\.'`,
      );
      expect(rows).toEqual([]);
    });

    it('statuses, priorities and roles are enums: one list, in the database', async () => {
      const { rows } = await db.sql(
        `select t.typname, array(select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder) as labels
           from pg_type t where t.typnamespace = 'public'::regnamespace and t.typtype = 'e' order by 1`,
      );
      expect(rows).toEqual([
        { typname: 'member_role', labels: ['admin', 'agent'] },
        { typname: 'ticket_priority', labels: ['low', 'normal', 'high', 'urgent'] },
        { typname: 'ticket_status', labels: ['new', 'open', 'pending', 'solved', 'closed'] },
      ]);
      const t = await openTicket(db);
      const agent = await db.as('acmeAgent');
      const bad = await agent.from('tickets').update({ priority: 'whenever' }).eq('id', t.id);
      expect(bad.error).toMatchObject({ code: '22P02' });
    });
  });
});
