// workspace_report (supabase/schemas/60_reports.sql): who may read it, every figure against plain SQL
// over the tickets (after inserts, updates, deletes and a change of time zone), and days and hours cut
// in the workspace's time zone across daylight saving changes.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import type { Percentiles, WorkspaceReport as Report } from '~/lib/reports/report.ts';
import { ACME, PEOPLE, type DbStack, type Person } from '../support/db.ts';

async function report(db: DbStack, ws: string, from: string, to: string, who: Person = 'acmeAdmin') {
  const slug = (await db.sql('select slug from workspaces where id = $1', [ws])).rows[0].slug;
  const { data, error } = await (await db.as(who)).rpc('workspace_report', { p_slug: slug, p_from: from, p_to: to });
  if (error) throw new Error(`workspace_report: ${error.message}`);
  return data as Report;
}

/** A workspace of its own with Acme's admin as admin and Acme's agent as agent. */
async function workspace(db: DbStack, slug: string, timeZone: string): Promise<string> {
  const id = (
    await db.sql(`insert into workspaces (slug, name, time_zone) values ($1, $1, $2) returning id`, [slug, timeZone])
  ).rows[0].id;
  await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'admin'), ($1, $3, 'agent')`, [
    id,
    PEOPLE.acmeAdmin.id,
    PEOPLE.acmeAgent.id,
  ]);
  return id;
}

/** Tickets at given moments, written as the platform (which may set every time). */
async function ticketsAt(
  db: DbStack,
  ws: string,
  rows: { created: string; firstResponse?: string; solved?: string; status?: string }[],
) {
  for (const r of rows)
    await db.sql(
      `insert into tickets (workspace_id, requester_id, subject, status, created_at, first_response_at, solved_at)
       values ($1, $2, 'At a moment', $3, $4, $5, $6)`,
      [
        ws,
        PEOPLE.acmeCustomer.id,
        r.status ?? (r.solved ? 'solved' : r.firstResponse ? 'open' : 'new'),
        r.created,
        r.firstResponse ?? null,
        r.solved ?? null,
      ],
    );
}

/** The same figures by plain SQL over the tickets: what the rollups must agree with. */
async function plainReport(db: DbStack, ws: string, from: string, to: string) {
  const tz = (await db.sql('select time_zone from workspaces where id = $1', [ws])).rows[0].time_zone;
  const q = async (sql: string) => (await db.sql(sql, [ws, from, to, tz])).rows;
  const days = await q(
    `select to_char(d, 'YYYY-MM-DD') as day,
            (select count(*) from tickets t where t.workspace_id = $1 and (t.created_at at time zone $4)::date = d::date)::int as created,
            (select count(*) from tickets t where t.workspace_id = $1 and (t.solved_at at time zone $4)::date = d::date)::int as solved
       from generate_series($2::date, $3::date, interval '1 day') d order by d`,
  );
  const percentiles = async (at: string) =>
    (
      await q(
        `select count(*)::int as count,
                percentile_disc(0.5) within group (order by s)::int as median_seconds,
                percentile_disc(0.9) within group (order by s)::int as p90_seconds
           from (select floor(extract(epoch from t.${at} - t.created_at)) as s from tickets t
                  where t.workspace_id = $1 and (t.${at} at time zone $4)::date between $2::date and $3::date) x`,
      )
    )[0] as Percentiles;
  const backlogByStatus = await q(
    `select s::text as status, (select count(*) from tickets t where t.workspace_id = $1 and t.status = s)::int as tickets
       from unnest(array['new', 'open', 'pending']::ticket_status[]) s where $2::date is not null and $3::date is not null and $4::text is not null order by s`,
  );
  const backlogByAssignee = await q(
    `select t.assignee_id, p.display_name as name, count(*) filter (where t.status = 'new')::int as new,
            count(*) filter (where t.status = 'open')::int as open, count(*) filter (where t.status = 'pending')::int as pending,
            count(*)::int as tickets
       from tickets t left join profiles p on p.user_id = t.assignee_id
      where t.workspace_id = $1 and t.status in ('new', 'open', 'pending') and $2::date is not null and $3::date is not null and $4::text is not null
      group by 1, 2 order by tickets desc, name, assignee_id`,
  );
  const busiestHours = await q(
    `select extract(isodow from t.created_at at time zone $4)::int as weekday, extract(hour from t.created_at at time zone $4)::int as hour,
            count(*)::int as created
       from tickets t where t.workspace_id = $1 and (t.created_at at time zone $4)::date between $2::date and $3::date
      group by 1, 2 order by 1, 2`,
  );
  return {
    days,
    created: days.reduce((n, d) => n + d.created, 0),
    solved: days.reduce((n, d) => n + d.solved, 0),
    first_response: await percentiles('first_response_at'),
    resolution: await percentiles('solved_at'),
    backlog_by_status: backlogByStatus,
    backlog_by_assignee: backlogByAssignee,
    busiest_hours: busiestHours,
  };
}

/** The report agrees with plain SQL: counts exactly, percentiles within their 2 % buckets. */
async function expectMatchesPlainSql(db: DbStack, ws: string, from: string, to: string) {
  const got = await report(db, ws, from, to);
  const want = await plainReport(db, ws, from, to);
  expect(got.days).toEqual(want.days);
  expect(got.created).toBe(want.created);
  expect(got.solved).toBe(want.solved);
  expect(got.backlog_by_status).toEqual(want.backlog_by_status);
  expect(got.backlog_by_assignee).toEqual(want.backlog_by_assignee);
  expect(got.busiest_hours).toEqual(want.busiest_hours);
  for (const kind of ['first_response', 'resolution'] as const) {
    expect(got[kind].count, kind).toBe(want[kind].count);
    for (const p of ['median_seconds', 'p90_seconds'] as const) {
      const exact = want[kind][p];
      if (exact === null) expect(got[kind][p]).toBeNull();
      else expect(Math.abs((got[kind][p] ?? Number.NaN) - exact), `${kind} ${p}`).toBeLessThanOrEqual(exact * 0.02 + 1);
    }
  }
  return got;
}

describe('workspace_report', () => {
  const db = dbFixture();

  it('is for the workspace’s admins: agents are refused, customers, another workspace’s admin and anonymous callers learn nothing', async () => {
    const args = { p_slug: 'acme', p_from: '2026-01-01', p_to: '2026-01-31' };
    for (const [who, code] of [
      ['acmeAgent', 'forbidden'],
      ['acmeCustomer', 'not_found'],
      ['globexAdmin', 'not_found'],
    ] as const) {
      const { data, error } = await (await db.as(who)).rpc('workspace_report', args);
      expect(data, who).toBeNull();
      expect(error, who).toMatchObject({ code: 'P0001', message: code });
    }
    const anon = await db.anon().rpc('workspace_report', args);
    expect(anon.data).toBeNull();
    expect(anon.error).toMatchObject({ code: '42501' });
    const admin = await (await db.as('acmeAdmin')).rpc('workspace_report', args);
    expect(admin.error).toBeNull();
    expect(admin.data).toMatchObject({ from: '2026-01-01', to: '2026-01-31', time_zone: 'UTC' });
    expect(
      (await (await db.as('globexAdmin')).rpc('workspace_report', { ...args, p_slug: 'globex' })).error,
    ).toBeNull();
  });

  it('the last n days end today in the workspace’s time zone', async () => {
    const c = await db.as('acmeAdmin');
    for (const tz of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      await db.sql(`update workspaces set time_zone = $2 where id = $1`, [ACME, tz]);
      const today = (await db.sql(`select to_char((now() at time zone $1)::date, 'YYYY-MM-DD') as d`, [tz])).rows[0].d;
      const { data, error } = await c.rpc('workspace_report', { p_slug: 'acme', p_days: 7 });
      expect(error).toBeNull();
      expect(data.to, tz).toBe(today);
      expect(data.days).toHaveLength(7);
      expect(data.days[6].day).toBe(today);
    }
    await db.sql(`update workspaces set time_zone = 'UTC' where id = $1`, [ACME]);
  });

  it('row-level security hides the rollups from everyone but the admins, whatever calls them', async () => {
    const session = new pg.Client({ connectionString: db.stack.dbUrl });
    await session.connect();
    const rowsFor = async (who: Person) => {
      await session.query('begin');
      await session.query(`select set_config('request.jwt.claims', $1, true)`, [
        JSON.stringify({ sub: PEOPLE[who].id, role: 'authenticated' }),
      ]);
      await session.query('set local role authenticated');
      const { rows } = await session.query(
        `select (select count(*) from private.report_slots)::int as slots, (select count(*) from private.report_durations)::int as durations,
                (select count(*) from private.ticket_tallies)::int as tallies`,
      );
      await session.query('rollback');
      return rows[0];
    };
    try {
      expect(await rowsFor('acmeAgent')).toEqual({ slots: 0, durations: 0, tallies: 0 });
      expect(await rowsFor('acmeCustomer')).toEqual({ slots: 0, durations: 0, tallies: 0 });
      const admin = await rowsFor('acmeAdmin');
      expect(admin.slots).toBeGreaterThan(0);
      expect(admin.durations).toBeGreaterThan(0);
      expect(admin.tallies).toBeGreaterThan(0);
    } finally {
      await session.end();
    }
  });

  it('refuses a range that ends before it starts, spans more than 366 days, or is missing', async () => {
    const c = await db.as('acmeAdmin');
    for (const [from, to] of [
      ['2026-02-01', '2026-01-31'],
      ['2025-01-01', '2026-01-02'],
    ]) {
      const { error } = await c.rpc('workspace_report', { p_slug: 'acme', p_from: from, p_to: to });
      expect(error, `${from}…${to}`).toMatchObject({ message: 'bad_request', details: 'range' });
    }
    for (const days of [0, 367]) {
      const { error } = await c.rpc('workspace_report', { p_slug: 'acme', p_days: days });
      expect(error, `${days} days`).toMatchObject({ message: 'bad_request', details: 'range' });
    }
    expect((await c.rpc('workspace_report', { p_slug: 'acme' })).error).toMatchObject({ message: 'bad_request' });
    expect(
      (await c.rpc('workspace_report', { p_slug: 'acme', p_from: '2025-01-01', p_to: '2026-01-01' })).error,
    ).toBeNull();
  });

  it('every figure matches plain SQL over the tickets, after inserts, updates, deletes and a new time zone', async () => {
    const ws = await workspace(db, 'report-figures', 'Europe/Berlin');
    // 400 tickets over two months, in every status, with first responses and resolutions minutes to days later.
    await db.sql(
      `select setseed(0.42);
       insert into tickets (workspace_id, requester_id, subject, status, assignee_id, created_at, first_response_at, solved_at)
       select '${ws}', '${PEOPLE.acmeCustomer.id}', 'Generated ' || g, st,
              case when st <> 'new' and g % 3 <> 0 then (array['${PEOPLE.acmeAdmin.id}', '${PEOPLE.acmeAgent.id}']::uuid[])[1 + g % 2] end,
              created, case when st <> 'new' then created + random() ^ 3 * interval '3 days' end,
              case when st in ('solved', 'closed') then created + interval '5 minutes' + random() * interval '10 days' end
         from (select g, timestamptz '2026-09-20 00:00+00' + random() * interval '70 days' as created,
                      (array['new', 'open', 'pending', 'solved', 'closed']::ticket_status[])[1 + floor(random() * 5)::int] as st
                 from generate_series(1, 400) g) x`,
    );
    const [from, to] = ['2026-10-01', '2026-11-30'];
    const first = await expectMatchesPlainSql(db, ws, from, to);
    expect(first.days).toHaveLength(61);
    expect(first.created).toBeGreaterThan(200);
    expect(first.first_response.count).toBeGreaterThan(100);
    expect(first.backlog_by_assignee.map((a) => a.name)).toEqual(expect.arrayContaining([null, 'Ada Admin']));

    // Reopened (solved_at goes), solved anew, re-dated, deleted: one statement each.
    await db.sql(
      `update tickets set status = 'open' where workspace_id = $1 and status = 'solved' and subject like '%1'`,
      [ws],
    );
    await db.sql(
      `update tickets set status = 'solved', solved_at = created_at + interval '3 hours' where workspace_id = $1 and status = 'open' and subject like '%2'`,
      [ws],
    );
    await db.sql(
      `update tickets set created_at = created_at - interval '1 day', first_response_at = first_response_at + interval '1 hour'
        where workspace_id = $1 and subject like '%3'`,
      [ws],
    );
    await db.sql(`update tickets set assignee_id = null where workspace_id = $1 and subject like '%4'`, [ws]);
    await db.sql(`delete from tickets where workspace_id = $1 and subject like '%5'`, [ws]);
    await expectMatchesPlainSql(db, ws, from, to);

    // Another zone moves the days (the durations are rebuilt; the slots need not be).
    await db.sql(`update workspaces set time_zone = 'Asia/Kolkata' where id = $1`, [ws]);
    const kolkata = await expectMatchesPlainSql(db, ws, from, to);
    expect(kolkata.time_zone).toBe('Asia/Kolkata');
    await db.sql(`update workspaces set time_zone = 'America/New_York' where id = $1`, [ws]);
    await expectMatchesPlainSql(db, ws, from, to);
    await expectMatchesPlainSql(db, ws, '2026-10-15', '2026-10-15');
  });

  it('percentiles are exact when the times differ by more than their buckets', async () => {
    const ws = await workspace(db, 'report-percentiles', 'UTC');
    // First responses after 30 s, 10 min, 2 h, 5 h, 1 day: median 2 h, p90 1 day.
    const created = Date.parse('2026-06-10T08:00:00Z');
    const after = [30, 600, 7200, 18_000, 86_400];
    await ticketsAt(
      db,
      ws,
      after.map((s) => ({
        created: new Date(created).toISOString(),
        firstResponse: new Date(created + s * 1000).toISOString(),
        solved: new Date(created + 2 * s * 1000).toISOString(),
      })),
    );
    const r = await report(db, ws, '2026-06-01', '2026-06-30');
    expect(r.first_response).toEqual({ count: 5, median_seconds: 7200, p90_seconds: 86_400 });
    expect(r.resolution).toEqual({ count: 5, median_seconds: 14_400, p90_seconds: 172_800 });
    const empty = await report(db, ws, '2026-01-01', '2026-01-31');
    expect(empty.first_response).toEqual({ count: 0, median_seconds: null, p90_seconds: null });
    expect(empty.days.every((d) => d.created === 0 && d.solved === 0)).toBe(true);
    expect(empty.busiest_hours).toEqual([]);
  });

  describe('days and hours in the workspace’s time zone', () => {
    it('a ticket at 23:30 UTC counts on the next day in Berlin, on the day before that in New York', async () => {
      const ws = await workspace(db, 'report-tz', 'Europe/Berlin');
      await ticketsAt(db, ws, [{ created: '2026-11-10T23:30:00Z', solved: '2026-11-11T23:30:00Z' }]);
      const day = (r: Report, d: string) => r.days.find((x) => x.day === d);
      const berlin = await report(db, ws, '2026-11-09', '2026-11-12');
      expect(day(berlin, '2026-11-11')).toEqual({ day: '2026-11-11', created: 1, solved: 0 });
      expect(day(berlin, '2026-11-12')).toEqual({ day: '2026-11-12', created: 0, solved: 1 });
      expect(berlin.created).toBe(1);
      // Wednesday 00:30 in Berlin.
      expect(berlin.busiest_hours).toEqual([{ weekday: 3, hour: 0, created: 1 }]);
      await db.sql(`update workspaces set time_zone = 'America/New_York' where id = $1`, [ws]);
      const newYork = await report(db, ws, '2026-11-09', '2026-11-12');
      expect(day(newYork, '2026-11-10')).toEqual({ day: '2026-11-10', created: 1, solved: 0 });
      expect(day(newYork, '2026-11-11')).toEqual({ day: '2026-11-11', created: 0, solved: 1 });
      // Tuesday 18:30 in New York.
      expect(newYork.busiest_hours).toEqual([{ weekday: 2, hour: 18, created: 1 }]);
      expect(newYork.resolution).toEqual({ count: 1, median_seconds: 86_400, p90_seconds: 86_400 });
    });

    it('days of 23 and 25 hours: the clocks changing in Berlin (spring) and New York (autumn)', async () => {
      const berlin = await workspace(db, 'report-dst-berlin', 'Europe/Berlin');
      // 29 March 2026 is 23 hours long in Berlin: 00:30 CET is 23:30 UTC the day before, 23:30 CEST is 21:30 UTC.
      await ticketsAt(db, berlin, [
        { created: '2026-03-28T22:59:00Z' }, // 23:59 CET, 28 March
        { created: '2026-03-28T23:30:00Z' }, // 00:30 CET, 29 March
        { created: '2026-03-29T21:30:00Z' }, // 23:30 CEST, 29 March
        { created: '2026-03-29T22:30:00Z' }, // 00:30 CEST, 30 March
      ]);
      const spring = await report(db, berlin, '2026-03-28', '2026-03-30');
      expect(spring.days.map((d) => d.created)).toEqual([1, 2, 1]);
      expect(spring.busiest_hours).toEqual([
        { weekday: 1, hour: 0, created: 1 },
        { weekday: 6, hour: 23, created: 1 },
        { weekday: 7, hour: 0, created: 1 },
        { weekday: 7, hour: 23, created: 1 },
      ]);
      await expectMatchesPlainSql(db, berlin, '2026-03-28', '2026-03-30');

      const newYork = await workspace(db, 'report-dst-new-york', 'America/New_York');
      // 1 November 2026 is 25 hours long in New York: 00:30 EDT is 04:30 UTC, 23:30 EST is 04:30 UTC the next day.
      await ticketsAt(db, newYork, [
        { created: '2026-11-01T03:59:00Z' }, // 23:59 EDT, 31 October
        { created: '2026-11-01T04:30:00Z' }, // 00:30 EDT, 1 November
        { created: '2026-11-01T05:30:00Z' }, // 01:30 EDT, 1 November
        { created: '2026-11-01T06:30:00Z' }, // 01:30 EST, 1 November (the hour again)
        { created: '2026-11-02T04:30:00Z' }, // 23:30 EST, 1 November
        { created: '2026-11-02T05:30:00Z' }, // 00:30 EST, 2 November
      ]);
      const autumn = await report(db, newYork, '2026-10-31', '2026-11-02');
      expect(autumn.days.map((d) => d.created)).toEqual([1, 4, 1]);
      expect(autumn.busiest_hours).toEqual([
        { weekday: 1, hour: 0, created: 1 },
        { weekday: 6, hour: 23, created: 1 },
        { weekday: 7, hour: 0, created: 1 },
        { weekday: 7, hour: 1, created: 2 },
        { weekday: 7, hour: 23, created: 1 },
      ]);
      await expectMatchesPlainSql(db, newYork, '2026-10-31', '2026-11-02');
    });

    it('zones a half or three quarters of an hour off UTC cut days at their own midnight', async () => {
      const ws = await workspace(db, 'report-kathmandu', 'Asia/Kathmandu');
      // Kathmandu is UTC+5:45: 18:14 UTC is 23:59, 18:15 UTC is 00:00 the next day.
      await ticketsAt(db, ws, [{ created: '2026-05-04T18:14:00Z' }, { created: '2026-05-04T18:15:00Z' }]);
      const r = await report(db, ws, '2026-05-04', '2026-05-05');
      expect(r.days.map((d) => d.created)).toEqual([1, 1]);
      expect(r.busiest_hours).toEqual([
        { weekday: 1, hour: 23, created: 1 },
        { weekday: 2, hour: 0, created: 1 },
      ]);
    });
  });
});
