// Snooze in the database (docs/product.md#snooze), through PostgREST per role: members snooze their
// workspace's tickets until a preset or a time in the workspace's zone, the ticket leaves the views of
// work to do (counts included) for the Snoozed view, and wakes — pending as open — by the job the
// scheduler runs every minute, or at once when the requester replies. Time is moved by the test:
// snoozed_until is set into the past, then the job (what pg_cron runs) is called.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, PEOPLE, openTicket } from '../support/db.ts';

type Role = 'acmeAdmin' | 'acmeAgent' | 'acmeCustomer' | 'globexAdmin' | 'anon';
const ROLES: Role[] = ['acmeAdmin', 'acmeAgent', 'acmeCustomer', 'globexAdmin', 'anon'];

interface Inbox {
  counts: Record<string, number>;
  total: number | null;
  tickets: { id: string; snoozed_until: string | null }[];
}

describe('snooze', () => {
  const db = dbFixture();
  const clients = {} as Record<Role, SupabaseClient>;
  const ticketRow = async (id: string) =>
    (await db.sql('select status, snoozed_until from tickets where id = $1', [id])).rows[0] as {
      status: string;
      snoozed_until: Date | null;
    };
  const inbox = async (view: string): Promise<Inbox> => {
    const { data, error } = await clients.acmeAgent.rpc('inbox', { p_slug: 'acme', p_view: view, p_limit: 1000 });
    if (error) throw new Error(error.message);
    return data as Inbox;
  };

  beforeAll(async () => {
    for (const r of ROLES) clients[r] = r === 'anon' ? db.anon() : await db.as(r);
  });

  for (const role of ROLES) {
    const member = role === 'acmeAdmin' || role === 'acmeAgent';
    it(`${role}: ${member ? 'snoozes and wakes' : 'may not snooze'} a ticket`, async () => {
      const t = await openTicket(db);
      const { data, error } = await clients[role].rpc('snooze_ticket', { p_ticket_id: t.id, p_preset: 'later' });
      if (member) {
        expect(error).toBeNull();
        const until = new Date(data as string).getTime() - Date.now();
        expect(until).toBeGreaterThan(2.9 * 3600_000);
        expect(until).toBeLessThanOrEqual(3 * 3600_000);
      } else expect(error?.message, role).toMatch(role === 'anon' ? /permission denied/ : /^not_found$/);
      expect((await ticketRow(t.id)).snoozed_until !== null).toBe(member);
      if (member) {
        expect((await clients[role].rpc('snooze_ticket', { p_ticket_id: t.id, p_preset: 'wake' })).error).toBeNull();
        expect((await ticketRow(t.id)).snoozed_until).toBeNull();
      }
    });
  }

  it("presets are 9:00 in the workspace's time zone; a date and time is the workspace's too", async () => {
    const t = await openTicket(db);
    await db.sql(`update workspaces set time_zone = 'America/New_York' where id = $1`, [ACME]);
    try {
      for (const preset of ['tomorrow', 'monday']) {
        const { data, error } = await clients.acmeAgent.rpc('snooze_ticket', { p_ticket_id: t.id, p_preset: preset });
        expect(error).toBeNull();
        const local = (
          await db.sql(`select to_char($1::timestamptz at time zone 'America/New_York', 'ID HH24:MI') as at`, [data])
        ).rows[0].at as string;
        expect(local.slice(2)).toBe('09:00');
        if (preset === 'monday') expect(local[0]).toBe('1');
      }
      const at = new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 10);
      const { data } = await clients.acmeAgent.rpc('snooze_ticket', { p_ticket_id: t.id, p_at: `${at}T14:30` });
      const { rows } = await db.sql(`select ($1::timestamptz at time zone 'America/New_York')::text as local`, [data]);
      expect(rows[0].local).toBe(`${at} 14:30:00`);
    } finally {
      await db.sql(`update workspaces set time_zone = 'UTC' where id = $1`, [ACME]);
    }
  });

  it('refuses a time in the past or over a year away, an unknown preset, and a solved ticket', async () => {
    const t = await openTicket(db);
    const call = (args: Record<string, unknown>) =>
      clients.acmeAgent.rpc('snooze_ticket', { p_ticket_id: t.id, ...args });
    expect((await call({ p_at: '2020-01-01T09:00' })).error?.message).toBe('snooze_invalid');
    expect((await call({ p_at: '2999-01-01T09:00' })).error?.message).toBe('snooze_invalid');
    expect((await call({ p_preset: 'someday' })).error?.message).toBe('snooze_invalid');
    expect((await call({})).error?.message).toBe('snooze_invalid');
    await db.sql(`update tickets set status = 'solved' where id = $1`, [t.id]);
    expect((await call({ p_preset: 'later' })).error?.message).toBe('ticket_not_snoozable');
    expect(await ticketRow(t.id)).toEqual({ status: 'solved', snoozed_until: null });
  });

  it('a snoozed ticket leaves the views of work to do and their counts, and shows in Snoozed', async () => {
    const t = await openTicket(db);
    const before = await inbox('unassigned');
    expect(before.tickets.map((x) => x.id)).toContain(t.id);
    await clients.acmeAgent.rpc('snooze_ticket', { p_ticket_id: t.id, p_preset: 'tomorrow' });
    const [unassigned, open, snoozed, all] = await Promise.all(['unassigned', 'open', 'snoozed', 'all'].map(inbox));
    expect(unassigned.tickets.map((x) => x.id)).not.toContain(t.id);
    expect(open.tickets.map((x) => x.id)).not.toContain(t.id);
    expect(all.tickets.map((x) => x.id)).toContain(t.id);
    expect(snoozed.tickets.find((x) => x.id === t.id)?.snoozed_until).toBeTruthy();
    expect(unassigned.counts.unassigned).toBe(before.counts.unassigned - 1);
    expect(snoozed.counts.snoozed).toBe(before.counts.snoozed + 1);
    expect(snoozed.total).toBe(snoozed.counts.snoozed);
    // Claim next skips it.
    const { rows } = await db.sql(
      `select count(*)::int as n from tickets where workspace_id = $1 and assignee_id is null and status in ('new', 'open') and snoozed_until is null`,
      [ACME],
    );
    expect(unassigned.counts.unassigned).toBe(rows[0].n);
    // The tallies agree with a count of the tickets.
    const drift = await db.sql(`
      with tallied as (select workspace_id, status, priority, assignee_id, snoozed, n from private.ticket_tallies where n > 0),
           counted as (select workspace_id, status, priority, assignee_id, snoozed_until is not null as snoozed, count(*) as n
                         from public.tickets group by 1, 2, 3, 4, 5)
      select * from ((table tallied except table counted) union all (table counted except table tallied)) d`);
    expect(drift.rows).toEqual([]);
  });

  it('wakes when due, by the job the scheduler runs every minute: pending comes back open; the history says so', async () => {
    const t = await openTicket(db);
    await db.sql(`update tickets set status = 'pending' where id = $1`, [t.id]);
    await clients.acmeAgent.rpc('snooze_ticket', { p_ticket_id: t.id, p_preset: 'later' });
    expect(await db.sql('select private.wake_snoozed_tickets() as n')).toMatchObject({ rows: [{ n: 0 }] });
    await db.sql(`update tickets set snoozed_until = now() - interval '1 second' where id = $1`, [t.id]);
    const { rows } = await db.sql('select private.wake_snoozed_tickets() as n');
    expect(rows[0].n).toBeGreaterThanOrEqual(1);
    expect(await ticketRow(t.id)).toEqual({ status: 'open', snoozed_until: null });
    const events = await db.sql(
      `select actor_id, type, "from", "to" from ticket_events where ticket_id = $1 and type <> 'created' order by id`,
      [t.id],
    );
    // The test's own moves (pending, the time moved back) have no actor, as the job's.
    expect(events.rows.map((e) => [e.type, e.actor_id, e.to])).toEqual([
      ['status', null, 'pending'],
      ['snoozed', PEOPLE.acmeAgent.id, expect.any(String)],
      ['snoozed', null, expect.any(String)],
      ['status', null, 'open'],
      ['unsnoozed', null, null],
    ]);
    const job = await db.sql(`select schedule, command from cron.job where jobname = 'wake-snoozed'`);
    expect(job.rows).toEqual([{ schedule: '* * * * *', command: 'select private.wake_snoozed_tickets()' }]);
  });

  it("wakes at once when the requester replies; a team member's reply or note doesn't wake it", async () => {
    const t = await openTicket(db);
    await clients.acmeAgent.rpc('snooze_ticket', { p_ticket_id: t.id, p_preset: 'monday' });
    const note = await clients.acmeAgent.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'Waiting on the vendor',
      p_kind: 'note',
    });
    expect(note.error).toBeNull();
    const reply = await clients.acmeAgent.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'We are on it',
      p_kind: 'reply',
    });
    expect(reply.error).toBeNull();
    expect((await ticketRow(t.id)).snoozed_until).not.toBeNull();
    const answer = await clients.acmeCustomer.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'Any news?',
      p_kind: 'reply',
    });
    expect(answer.error).toBeNull();
    expect(await ticketRow(t.id)).toEqual({ status: 'open', snoozed_until: null });
    const { rows } = await db.sql(`select actor_id from ticket_events where ticket_id = $1 and type = 'unsnoozed'`, [
      t.id,
    ]);
    expect(rows).toEqual([{ actor_id: PEOPLE.acmeCustomer.id }]);
  });

  it('solving a snoozed ticket ends the snooze', async () => {
    const t = await openTicket(db);
    await clients.acmeAgent.rpc('snooze_ticket', { p_ticket_id: t.id, p_preset: 'later' });
    const { error } = await clients.acmeAgent.from('tickets').update({ status: 'solved' }).eq('id', t.id);
    expect(error).toBeNull();
    expect(await ticketRow(t.id)).toEqual({ status: 'solved', snoozed_until: null });
  });
});
