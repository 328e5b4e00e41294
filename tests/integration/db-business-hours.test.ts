// Business hours (docs/product.md "Business hours and SLA targets", supabase/schemas/90_promises.sql):
// the two business-time functions across DST changes, holidays, midnight and several periods a day,
// and who may read and change the hours and holidays.
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, type Person } from '../support/db.ts';

const MON_FRI_SPLIT = [1, 2, 3, 4, 5].flatMap((weekday) => [
  { weekday, opens: '08:00', closes: '12:00' },
  { weekday, opens: '13:30', closes: '18:00' },
]);

describe('business time', () => {
  const db = dbFixture();
  let ws = '';

  /** A workspace of its own (time zone, periods, holidays) for each case. */
  async function workspace(timeZone: string, periods: object[], holidays: [string, string][] = []) {
    const { rows } = await db.sql(
      `insert into workspaces (name, slug, time_zone) values ('Hours', 'hours-' || substr(md5(random()::text), 1, 8), $1) returning id`,
      [timeZone],
    );
    const id = rows[0].id as string;
    await db.sql(
      `insert into business_hours (workspace_id, weekday, opens, closes)
       select $1, (e->>'weekday')::smallint, (e->>'opens')::time, (e->>'closes')::time from jsonb_array_elements($2::jsonb) e`,
      [id, JSON.stringify(periods)],
    );
    for (const [day, name] of holidays) {
      await db.sql('insert into holidays (workspace_id, day, name) values ($1, $2, $3)', [id, day, name]);
    }
    return id;
  }

  async function add(id: string, at: string, minutes: number): Promise<string | null> {
    const { rows } = await db.sql(
      `select to_char(private.business_minutes_add($1, $2::timestamptz, $3) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as t`,
      [id, at, minutes],
    );
    return rows[0].t;
  }

  async function between(id: string, from: string, to: string): Promise<number> {
    const { rows } = await db.sql(
      'select private.business_minutes_between($1, $2::timestamptz, $3::timestamptz) as m',
      [id, from, to],
    );
    return Number(rows[0].m);
  }

  beforeAll(async () => {
    ws = await workspace('Europe/Berlin', MON_FRI_SPLIT);
  });

  it('adds minutes across the lunch break, the evening and the weekend', async () => {
    // Friday 2026-03-06 11:30 Berlin (10:30Z): 30 min to noon, then 13:30–18:00, then Monday 08:00.
    expect(await add(ws, '2026-03-06T10:30:00Z', 30)).toBe('2026-03-06T11:00:00Z');
    expect(await add(ws, '2026-03-06T10:30:00Z', 31)).toBe('2026-03-06T12:31:00Z');
    // Friday 17:30 + 60 min: 30 today, 30 on Monday from 08:00 → Monday 08:30 Berlin (07:30Z).
    expect(await add(ws, '2026-03-06T16:30:00Z', 60)).toBe('2026-03-09T07:30:00Z');
    // From a closed time (Saturday) the clock starts at the next opening.
    expect(await add(ws, '2026-03-07T12:00:00Z', 1)).toBe('2026-03-09T07:01:00Z');
    expect(await add(ws, '2026-03-07T12:00:00Z', 0)).toBe('2026-03-07T12:00:00Z');
    expect(await between(ws, '2026-03-06T16:30:00Z', '2026-03-09T07:30:00Z')).toBe(60);
    // A whole week: 5 × 8.5 h.
    expect(await between(ws, '2026-03-02T00:00:00Z', '2026-03-09T00:00:00Z')).toBe(5 * 510);
    expect(await between(ws, '2026-03-09T00:00:00Z', '2026-03-02T00:00:00Z')).toBe(0);
  });

  it('keeps the local opening hours across DST in Europe/Berlin', async () => {
    // Spring forward: Sunday 2026-03-29. Friday 27th 17:00 CET (16:00Z) + 120 min: 60 on Friday, 60 on
    // Monday 30th from 08:00 CEST (06:00Z) → 07:00Z.
    expect(await add(ws, '2026-03-27T16:00:00Z', 120)).toBe('2026-03-30T07:00:00Z');
    // Fall back: Sunday 2026-10-25. Friday 23rd 17:00 CEST (15:00Z) + 120 → Monday 26th 09:00 CET (08:00Z).
    expect(await add(ws, '2026-10-23T15:00:00Z', 120)).toBe('2026-10-26T08:00:00Z');
    expect(await between(ws, '2026-10-23T15:00:00Z', '2026-10-26T08:00:00Z')).toBe(120);
  });

  it('counts real minutes in America/New_York, also in a period spanning the change at 02:00', async () => {
    const ny = await workspace(
      'America/New_York',
      [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, opens: '00:00', closes: '04:00' })),
    );
    // 2026-03-08 spring forward (02:00 → 03:00): 00:00–04:00 EST/EDT lasts 3 hours.
    expect(await between(ny, '2026-03-08T05:00:00Z', '2026-03-08T08:00:00Z')).toBe(180);
    expect(await between(ny, '2026-03-08T00:00:00Z', '2026-03-09T00:00:00Z')).toBe(180);
    // 2026-11-01 fall back: the same wall-clock period lasts 5 hours.
    expect(await between(ny, '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z')).toBe(300);
    // Saturday 2026-03-07 03:00 EST (08:00Z) + 120: 60 to 04:00, then Sunday from 00:00 EST (05:00Z) + 60 → 06:00Z.
    expect(await add(ny, '2026-03-07T08:00:00Z', 120)).toBe('2026-03-08T06:00:00Z');
    // + 200: 60 Saturday, then Sunday's 180 real minutes end at 04:00 EDT (08:00Z), then Monday 00:00 EDT (04:00Z) + 20.
    expect(await add(ny, '2026-03-07T08:00:00Z', 260)).toBe('2026-03-09T04:20:00Z');
  });

  it('skips holidays, whole days of the workspace time zone', async () => {
    const h = await workspace('Europe/Berlin', MON_FRI_SPLIT, [
      ['2026-12-24', 'Christmas Eve'],
      ['2026-12-25', 'Christmas'],
    ]);
    // Wednesday 23rd 17:00 CET (16:00Z) + 90: 60 today, then Thursday and Friday are holidays → Monday 28th
    // 08:30 CET (07:30Z).
    expect(await add(h, '2026-12-23T16:00:00Z', 90)).toBe('2026-12-28T07:30:00Z');
    expect(await between(h, '2026-12-23T00:00:00Z', '2026-12-28T00:00:00Z')).toBe(510);
  });

  it('takes periods that end at midnight, and is open around the clock with no periods', async () => {
    const late = await workspace('UTC', [
      { weekday: 1, opens: '20:00', closes: '24:00' },
      { weekday: 2, opens: '00:00', closes: '02:00' },
    ]);
    // Monday 2026-03-02 23:30 + 60: 30 to midnight, then Tuesday 00:00–00:30 (the periods touch).
    expect(await add(late, '2026-03-02T23:30:00Z', 60)).toBe('2026-03-03T00:30:00Z');
    expect(await between(late, '2026-03-02T00:00:00Z', '2026-03-04T00:00:00Z')).toBe(360);
    // Monday 2026-03-02 23:30 + 400 min: 30 + 120 this week, then 250 more from Monday 9th 20:00 →
    // 240 to midnight, then Tuesday 10th 00:10.
    expect(await add(late, '2026-03-02T23:30:00Z', 400)).toBe('2026-03-10T00:10:00Z');

    const always = await workspace('Asia/Tokyo', [], [['2026-05-05', "Children's Day"]]);
    expect(await add(always, '2026-05-04T14:00:00Z', 60)).toBe('2026-05-04T15:00:00Z');
    // The holiday is Tokyo's 5 May: 15:00Z on the 4th to 15:00Z on the 5th is closed.
    expect(await add(always, '2026-05-04T14:30:00Z', 60)).toBe('2026-05-05T15:30:00Z');
    expect(await between(always, '2026-05-04T00:00:00Z', '2026-05-07T00:00:00Z')).toBe(2 * 24 * 60);
  });

  it('answers null for a workspace closed all year', async () => {
    const days = Array.from({ length: 400 }, (_, i) => {
      const d = new Date(Date.UTC(2026, 0, 1 + i));
      return [d.toISOString().slice(0, 10), 'Closed'] as [string, string];
    });
    const closed = await workspace('UTC', [{ weekday: 3, opens: '09:00', closes: '10:00' }], days);
    expect(await add(closed, '2026-01-01T00:00:00Z', 1)).toBeNull();
  });

  it('admins replace the week at once; overlaps and bad times are hours_invalid and change nothing', async () => {
    const admin = await db.as('acmeAdmin');
    const week = [
      { weekday: 1, opens: '08:00', closes: '12:00' },
      { weekday: 1, opens: '13:30', closes: '18:00' },
    ];
    expect((await admin.rpc('save_business_hours', { p_workspace_id: ACME, p_periods: week })).error).toBeNull();
    const read = async () =>
      (
        await db.sql(
          'select weekday, opens::text, closes::text from business_hours where workspace_id = $1 order by 1, 2',
          [ACME],
        )
      ).rows;
    const saved = await read();
    expect(saved).toEqual([
      { weekday: 1, opens: '08:00:00', closes: '12:00:00' },
      { weekday: 1, opens: '13:30:00', closes: '18:00:00' },
    ]);
    for (const bad of [
      [...week, { weekday: 1, opens: '11:00', closes: '14:00' }],
      [{ weekday: 2, opens: '18:00', closes: '08:00' }],
      [{ weekday: 8, opens: '08:00', closes: '09:00' }],
      [{ weekday: 2, opens: 'noon', closes: '13:00' }],
    ]) {
      const { error } = await admin.rpc('save_business_hours', { p_workspace_id: ACME, p_periods: bad });
      expect(error, JSON.stringify(bad)).toMatchObject({ code: 'P0001', message: 'hours_invalid' });
      expect(await read()).toEqual(saved);
    }
  });

  it('members read hours and holidays; only admins change them; requesters and others see nothing', async () => {
    await db.sql(
      `insert into holidays (workspace_id, day, name) values ($1, '2026-12-31', 'New Year''s Eve') on conflict do nothing`,
      [ACME],
    );
    const admin = await db.as('acmeAdmin');
    expect(
      (await admin.from('holidays').insert({ workspace_id: ACME, day: '2026-01-01', name: 'New Year' })).error,
    ).toBeNull();
    expect(
      (await admin.from('holidays').delete().eq('workspace_id', ACME).eq('day', '2026-01-01').select()).data,
    ).toHaveLength(1);

    const agent = await db.as('acmeAgent');
    expect(
      (await agent.from('business_hours').select('weekday').eq('workspace_id', ACME)).data?.length,
    ).toBeGreaterThan(0);
    expect((await agent.from('holidays').select('name').eq('workspace_id', ACME)).data).toEqual([
      { name: "New Year's Eve" },
    ]);
    expect(
      (await agent.from('holidays').insert({ workspace_id: ACME, day: '2026-06-01', name: 'Mine' })).error,
    ).toMatchObject({
      code: '42501',
    });
    expect((await agent.from('holidays').delete().eq('workspace_id', ACME).select()).data).toEqual([]);
    expect((await agent.rpc('save_business_hours', { p_workspace_id: ACME, p_periods: [] })).error).toMatchObject({
      message: 'forbidden',
    });
    expect(
      (await agent.from('business_hours').insert({ workspace_id: ACME, weekday: 2, opens: '00:00', closes: '01:00' }))
        .error,
    ).toMatchObject({ code: '42501' });

    const outsiders: Person[] = ['acmeCustomer', 'globexAdmin'];
    for (const person of outsiders) {
      const c = await db.as(person);
      expect((await c.from('business_hours').select('weekday').eq('workspace_id', ACME)).data, person).toEqual([]);
      expect((await c.from('holidays').select('name').eq('workspace_id', ACME)).data, person).toEqual([]);
      expect(
        (await c.from('holidays').insert({ workspace_id: ACME, day: '2026-06-02', name: 'X' })).error,
        person,
      ).not.toBeNull();
      expect((await c.rpc('save_business_hours', { p_workspace_id: ACME, p_periods: [] })).error, person).toMatchObject(
        {
          message: 'forbidden',
        },
      );
    }
    expect((await db.anon().from('holidays').select('name')).error).not.toBeNull();
    expect((await db.sql('select count(*)::int as n from holidays where workspace_id = $1', [ACME])).rows[0].n).toBe(1);
  });
});
