// SLA targets (docs/product.md "Business hours and SLA targets", supabase/schemas/90_promises.sql):
// the due time each ticket carries, computed when it changes; the pause while pending; the stop on
// solve; next responses; the breach sweep and its history; outcomes; who reads and writes what.
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, PEOPLE, openTicket, type Person } from '../support/db.ts';

interface Sla {
  target: string | null;
  due: string | null;
  warn: string | null;
  breached: boolean;
}

describe('SLA targets', () => {
  const db = dbFixture();

  async function sla(ticketId: string): Promise<Sla> {
    const { rows } = await db.sql(
      `select s.target::text, s.breached_at is not null as breached,
              extract(epoch from s.due_at - t.created_at) / 60 as due, extract(epoch from s.warn_at - t.created_at) / 60 as warn
         from ticket_sla s join tickets t on t.id = s.ticket_id where s.ticket_id = $1`,
      [ticketId],
    );
    const r = rows[0];
    return {
      target: r.target,
      due: r.due === null ? null : Number(r.due).toFixed(1),
      warn: r.warn === null ? null : Number(r.warn).toFixed(1),
      breached: r.breached,
    };
  }

  async function reply(person: Person, ticketId: string, kind: 'reply' | 'note' = 'reply', status?: string) {
    const c = await db.as(person);
    const { error } = await c.rpc('post_message', {
      p_ticket_id: ticketId,
      p_body: 'Hello',
      p_kind: kind,
      p_new_status: status,
    });
    expect(error).toBeNull();
  }

  async function outcomes(ticketId: string) {
    return (await db.sql(`select target::text, met from sla_outcomes where ticket_id = $1 order by id`, [ticketId]))
      .rows;
  }

  beforeAll(async () => {
    const admin = await db.as('acmeAdmin');
    const { error } = await admin.rpc('save_sla_targets', {
      p_workspace_id: ACME,
      p_targets: [
        {
          priority: 'normal',
          first_response_minutes: 60,
          next_response_minutes: 30,
          resolution_minutes: 240,
          business_hours: false,
        },
        { priority: 'urgent', first_response_minutes: 10, resolution_minutes: 60, business_hours: false },
      ],
    });
    expect(error).toBeNull();
  });

  it('a new ticket is due for its first response, amber at 75 %; the reply meets it and the resolution is next', async () => {
    const t = await openTicket(db);
    expect(await sla(t.id)).toEqual({ target: 'first_response', due: '60.0', warn: '45.0', breached: false });
    // A note answers nobody.
    await reply('acmeAgent', t.id, 'note');
    expect((await sla(t.id)).target).toBe('first_response');
    await reply('acmeAgent', t.id);
    expect(await sla(t.id)).toEqual({ target: 'resolution', due: '240.0', warn: '180.0', breached: false });
    expect(await outcomes(t.id)).toEqual([{ target: 'first_response', met: true }]);

    // The requester writes again: a next response is due 30 minutes after their message.
    await reply('acmeCustomer', t.id);
    const { rows } = await db.sql(
      `select s.target::text, extract(epoch from s.due_at - m.created_at) / 60 as after
         from ticket_sla s, lateral (select created_at from messages where ticket_id = s.ticket_id order by created_at desc limit 1) m
        where s.ticket_id = $1`,
      [t.id],
    );
    expect(rows[0].target).toBe('next_response');
    expect(Number(rows[0].after)).toBeCloseTo(30, 3);
    // A second message while waiting doesn't restart the wait.
    await reply('acmeCustomer', t.id);
    expect(
      (
        await db.sql('select count(*)::int as n from ticket_sla where ticket_id = $1 and waiting_since is not null', [
          t.id,
        ])
      ).rows[0].n,
    ).toBe(1);
    await reply('acmeAgent2', t.id);
    expect((await sla(t.id)).target).toBe('resolution');
    expect(await outcomes(t.id)).toEqual([
      { target: 'first_response', met: true },
      { target: 'next_response', met: true },
    ]);

    // Solved: the clock stops, the resolution is met.
    await reply('acmeAgent', t.id, 'reply', 'solved');
    expect(await sla(t.id)).toEqual({ target: null, due: null, warn: null, breached: false });
    expect((await outcomes(t.id)).at(-1)).toEqual({ target: 'resolution', met: true });
  });

  it('pauses while pending: the time waiting on the customer moves the due time', async () => {
    const t = await openTicket(db);
    await reply('acmeAgent', t.id, 'reply', 'pending');
    expect((await sla(t.id)).due).toBeNull();
    // Pending for two hours (as if): the resolution is due two hours later when it opens again.
    await db.sql(`update ticket_sla set paused_at = now() - interval '2 hours' where ticket_id = $1`, [t.id]);
    await reply('acmeCustomer', t.id);
    const now = await sla(t.id);
    expect(now.target).toBe('next_response');
    await reply('acmeAgent', t.id);
    const after = await sla(t.id);
    expect(after.target).toBe('resolution');
    expect(Number(after.due)).toBeCloseTo(240 + 120, 0);
  });

  it('follows the priority: urgent has its own targets, low has none', async () => {
    const t = await openTicket(db);
    const agent = await db.as('acmeAgent');
    await agent.from('tickets').update({ priority: 'urgent' }).eq('id', t.id);
    expect(await sla(t.id)).toEqual({ target: 'first_response', due: '10.0', warn: '7.5', breached: false });
    await agent.from('tickets').update({ priority: 'low' }).eq('id', t.id);
    expect((await sla(t.id)).due).toBeNull();
  });

  it('counts business hours: a ticket from Friday 17:30 is due on Monday', async () => {
    const { rows } = await db.sql(
      `insert into workspaces (name, slug, time_zone) values ('Berlin Co', 'berlin-sla', 'Europe/Berlin') returning id`,
    );
    const ws = rows[0].id as string;
    await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'admin')`, [
      ws,
      PEOPLE.acmeAdmin.id,
    ]);
    const admin = await db.as('acmeAdmin');
    expect(
      (
        await admin.rpc('save_business_hours', {
          p_workspace_id: ws,
          p_periods: [1, 2, 3, 4, 5].map((weekday) => ({ weekday, opens: '09:00', closes: '17:00' })),
        })
      ).error,
    ).toBeNull();
    expect(
      (
        await admin.rpc('save_sla_targets', {
          p_workspace_id: ws,
          p_targets: [{ priority: 'normal', first_response_minutes: 60, resolution_minutes: 960 }],
        })
      ).error,
    ).toBeNull();
    const customer = await db.as('acmeCustomer');
    const { data } = await customer.rpc('create_ticket', {
      p_workspace_slug: 'berlin-sla',
      p_subject: 'Late',
      p_body: 'Friday evening',
    });
    const id = (data as { id: string }[])[0].id;
    // Opened Friday 2026-03-06 17:30 Berlin (as if): first response Monday 10:00, resolution 16 business hours → Tuesday 17:00.
    await db.sql(`update tickets set created_at = '2026-03-06T16:30:00Z' where id = $1`, [id]);
    await db.sql('select private.sla_refresh($1)', [id]);
    const due = async () =>
      (
        await db.sql(
          `select to_char(due_at at time zone 'Europe/Berlin', 'Dy HH24:MI') as due, target::text from ticket_sla where ticket_id = $1`,
          [id],
        )
      ).rows[0];
    expect(await due()).toEqual({ due: 'Mon 10:00', target: 'first_response' });
    await db.sql(`update tickets set first_response_at = '2026-03-09T08:30:00Z' where id = $1`, [id]);
    expect(await due()).toEqual({ due: 'Tue 17:00', target: 'resolution' });
    expect(await outcomes(id)).toEqual([{ target: 'first_response', met: true }]);
  });

  it('the sweep records a breach once: a missed outcome and an event in the history', async () => {
    const t = await openTicket(db);
    await db.sql(`update tickets set created_at = now() - interval '61 minutes' where id = $1`, [t.id]);
    await db.sql('select private.sla_refresh($1)', [t.id]);
    const service = db.service();
    const first = await service.rpc('record_sla_breaches');
    expect(first.error).toBeNull();
    expect(first.data).toBeGreaterThanOrEqual(1);
    expect((await sla(t.id)).breached).toBe(true);
    const again = await service.rpc('record_sla_breaches');
    expect(again.error).toBeNull();
    const events = (
      await db.sql(`select type, "to", actor_id from ticket_events where ticket_id = $1 and type = 'sla_breach'`, [
        t.id,
      ])
    ).rows;
    expect(events).toEqual([{ type: 'sla_breach', to: 'first_response', actor_id: null }]);
    // The late reply doesn't turn the miss into a hit.
    await reply('acmeAgent', t.id);
    expect(await outcomes(t.id)).toEqual([{ target: 'first_response', met: false }]);
    // Only the platform sweeps.
    for (const person of ['acmeAdmin', 'acmeAgent'] as const) {
      expect((await (await db.as(person)).rpc('record_sla_breaches')).error, person).not.toBeNull();
    }
  });

  it('a breach tells the ticket’s assignee, as their "SLA warnings" setting says; unassigned: nobody', async () => {
    const breach = async (assignee: Person | null) => {
      const t = await openTicket(db);
      if (assignee) await db.sql('update tickets set assignee_id = $2 where id = $1', [t.id, PEOPLE[assignee].id]);
      await db.sql(`update tickets set created_at = now() - interval '61 minutes' where id = $1`, [t.id]);
      await db.sql('select private.sla_refresh($1)', [t.id]);
      expect((await db.service().rpc('record_sla_breaches')).error).toBeNull();
      return (
        await db.sql(
          `select recipient_id, kind, actor_id, in_app, email from notifications where ticket_id = $1 and kind = 'sla_warning'`,
          [t.id],
        )
      ).rows;
    };
    // Tend's default: in the app, and an email each time.
    expect(await breach('acmeAgent')).toEqual([
      { recipient_id: PEOPLE.acmeAgent.id, kind: 'sla_warning', actor_id: null, in_app: true, email: 'each' },
    ]);
    // A member who turned them off hears nothing (nothing is stored).
    const { error } = await (await db.as('acmeAgent2')).rpc('save_notification_settings', {
      p_workspace_id: ACME,
      p_settings: [{ kind: 'sla_warning', email: 'off', in_app: false }],
    });
    expect(error).toBeNull();
    expect(await breach('acmeAgent2')).toEqual([]);
    expect(await breach(null)).toEqual([]);
    // The bell shows it, worded for a missed target.
    const { data } = await (await db.as('acmeAgent')).from('notifications').select('kind').eq('kind', 'sla_warning');
    expect(data?.length).toBeGreaterThanOrEqual(1);
  });

  it('members read targets and promises; only admins change targets; requesters and others see none', async () => {
    const t = await openTicket(db);
    const agent = await db.as('acmeAgent');
    expect((await agent.from('sla_targets').select('priority').eq('workspace_id', ACME)).data?.length).toBe(2);
    expect((await agent.from('ticket_sla').select('target').eq('ticket_id', t.id)).data).toEqual([
      { target: 'first_response' },
    ]);
    expect((await agent.rpc('save_sla_targets', { p_workspace_id: ACME, p_targets: [] })).error).toMatchObject({
      message: 'forbidden',
    });
    expect((await agent.from('ticket_sla').update({ due_at: null }).eq('ticket_id', t.id)).error).toMatchObject({
      code: '42501',
    });
    for (const person of ['acmeCustomer', 'globexAdmin'] as const) {
      const c = await db.as(person);
      expect((await c.from('sla_targets').select('priority').eq('workspace_id', ACME)).data, person).toEqual([]);
      expect((await c.from('ticket_sla').select('target').eq('ticket_id', t.id)).data, person).toEqual([]);
      expect((await c.from('sla_outcomes').select('met').eq('workspace_id', ACME)).data, person).toEqual([]);
      expect((await c.rpc('save_sla_targets', { p_workspace_id: ACME, p_targets: [] })).error, person).toMatchObject({
        message: 'forbidden',
      });
    }
    expect((await db.anon().from('ticket_sla').select('target')).error).not.toBeNull();
    // Bad targets change nothing.
    const admin = await db.as('acmeAdmin');
    for (const bad of [
      [{ priority: 'normal', first_response_minutes: 0 }],
      [{ priority: 'huge', first_response_minutes: 5 }],
      [{ priority: 'low', resolution_minutes: 'soon' }],
    ]) {
      expect(
        (await admin.rpc('save_sla_targets', { p_workspace_id: ACME, p_targets: bad })).error,
        JSON.stringify(bad),
      ).toMatchObject({
        message: 'sla_invalid',
      });
    }
    expect((await agent.from('sla_targets').select('priority').eq('workspace_id', ACME)).data?.length).toBe(2);
  });
  it('"Breaching soon" lists running promises soonest due first; the report shares met per week, agent and priority', async () => {
    const agent = await db.as('acmeAgent');
    const late = await openTicket(db, 'acmeCustomer', 'Late one');
    const urgent = await openTicket(db, 'acmeCustomer2', 'Urgent one');
    await agent.from('tickets').update({ priority: 'urgent' }).eq('id', urgent.id);
    await db.sql(`update tickets set created_at = now() - interval '3 hours' where id = $1`, [late.id]);
    await db.sql('select private.sla_refresh($1)', [late.id]);
    const { data, error } = await agent.rpc('inbox', { p_slug: 'acme', p_view: 'breaching' });
    expect(error).toBeNull();
    const page = data as { tickets: { id: string; due_at: string }[]; total: number | null; older: unknown };
    const dues = page.tickets.map((t) => t.due_at);
    expect(dues).toEqual([...dues].sort());
    expect(page.tickets.findIndex((t) => t.id === late.id)).toBeLessThan(
      page.tickets.findIndex((t) => t.id === urgent.id),
    );
    expect(page.total).toBeNull();
    expect(page.older).toBeNull();
    const { rows } = await db.sql(
      `select count(*)::int as n from ticket_sla where workspace_id = $1 and due_at is not null`,
      [ACME],
    );
    expect(page.tickets).toHaveLength(Math.min(rows[0].n, 25));

    // The report counts what the earlier tests decided, as stored.
    const admin = await db.as('acmeAdmin');
    const report = await admin.rpc('sla_report', { p_slug: 'acme', p_days: 7 });
    expect(report.error).toBeNull();
    const stored = (
      await db.sql(
        `select priority::text, count(*) filter (where met)::int as met, count(*)::int as total from sla_outcomes
          where workspace_id = $1 group by 1 order by 1`,
        [ACME],
      )
    ).rows;
    const r = report.data as {
      weeks: { met: number; total: number }[];
      priorities: { priority: string; met: number; total: number }[];
      agents: { total: number }[];
    };
    expect(r.priorities.map((p) => ({ ...p })).sort((a, b) => a.priority.localeCompare(b.priority))).toEqual(stored);
    const total = stored.reduce((n, p) => n + p.total, 0);
    expect(total).toBeGreaterThan(0);
    expect(r.weeks.reduce((n, w) => n + w.total, 0)).toBe(total);
    expect(r.agents.reduce((n, a) => n + a.total, 0)).toBe(total);
    expect((await agent.rpc('sla_report', { p_slug: 'acme', p_days: 7 })).error).toMatchObject({
      message: 'forbidden',
    });
    expect((await (await db.as('globexAdmin')).rpc('sla_report', { p_slug: 'acme', p_days: 7 })).error).toMatchObject({
      message: 'not_found',
    });
  });
});
