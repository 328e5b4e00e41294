// pg_net and pg_cron's SQL interface, served by the stack: requests queued in SQL reach the
// functions and their answers land in net._http_response; cron jobs run on schedule as their user
// and leave cron.job_run_details (docs/reference/storage-functions.md B3; pg_net, pg_cron sources).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { freePort, startStack } from '@tend/supabase-local';
import { startTestStack } from '../support/stack.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const stack = stackFixture({ fixture: 'functions-project' });
let postgres: pg.Pool; // as the app's migrations and the dashboard's SQL editor run: role postgres

const response = (id: number | string) =>
  waitFor(`the response to request ${id}`, async () => {
    const { rows } = await postgres.query('select * from net._http_response where id = $1', [id]);
    return rows[0];
  });

beforeAll(() => {
  postgres = new pg.Pool({ connectionString: stack.dbUrl, max: 2 });
  postgres.on('error', () => undefined);
});
afterAll(async () => {
  await postgres?.end();
});

describe('migrations', () => {
  it('create extension pg_net / pg_cron in a migration works as on hosted, owned by supabase_admin', async () => {
    const { rows } = await stack.sql(
      `select e.extname, r.rolname as owner, n.nspname as schema from pg_extension e
       join pg_roles r on r.oid = e.extowner join pg_namespace n on n.oid = e.extnamespace
       where extname in ('pg_net', 'pg_cron') order by 1`,
    );
    expect(rows.map((r) => r.extname)).toEqual(['pg_cron', 'pg_net']);
    const tables = await stack.sql(`select tableowner from pg_tables where schemaname in ('net', 'cron') group by 1`);
    expect(tables.rows).toEqual([{ tableowner: 'supabase_admin' }]);
    await postgres.query('select net.check_worker_is_up()');
  });
});

describe('net', () => {
  it('sends a queued POST only after commit and records the function’s answer', async () => {
    const c = await postgres.connect();
    try {
      await c.query('begin');
      const { rows } = await c.query(
        `select net.http_post(url := $1, body := '{"hello": "net"}'::jsonb,
                              headers := jsonb_build_object('Authorization', 'Bearer ' || $2::text)) as id`,
        [`${stack.apiUrl}/functions/v1/echo/from-sql`, stack.serviceRoleKey],
      );
      const id = rows[0].id;
      // Not sent while the transaction is open: the queued row isn't visible to the worker yet.
      const before = await stack.sql('select count(*)::int as n from net._http_response where id = $1', [id]);
      expect(before.rows[0].n).toBe(0);
      await c.query('commit');
      const res = await response(id);
      expect(res.status_code).toBe(200);
      expect(res.timed_out).toBe(false);
      expect(res.content_type).toMatch(/^application\/json/);
      const body = JSON.parse(res.content);
      expect(body).toMatchObject({ method: 'POST', path: '/echo/from-sql', body: '{"hello": "net"}' });
      expect(body.authorization).toBe(`Bearer ${stack.serviceRoleKey}`);
      const queued = await stack.sql('select count(*)::int as n from net.http_request_queue where id = $1', [id]);
      expect(queued.rows[0].n).toBe(0); // taken off the queue, as pg_net does
    } finally {
      c.release();
    }
  });

  it('encodes params into the query string of a GET, and collects the response', async () => {
    const { rows } = await postgres.query(
      `select net.http_get($1, params := '{"q": "a b&c", "n": "1"}'::jsonb) as id`,
      [`${stack.apiUrl}/functions/v1/open`],
    );
    const res = await response(rows[0].id);
    expect(res.status_code).toBe(200);
    const collected = await postgres.query('select (net._http_collect_response($1)).*', [rows[0].id]);
    expect(collected.rows[0]).toMatchObject({ status: 'SUCCESS', message: 'ok' });
    const url = await postgres.query(`select net._encode_url_with_params_array('http://x/p?a=1', array['q=a%20b'])`);
    expect(Object.values(url.rows[0])[0]).toBe('http://x/p?a=1&q=a%20b');
    const enc = await postgres.query(`select net._urlencode_string('a b&c/é') as s`);
    expect(enc.rows[0].s).toBe('a%20b%26c%2F%C3%A9');
  });

  it('records a timeout and a refused connection as pg_net does', async () => {
    const slow = await postgres.query(
      `select net.http_get($1, headers := jsonb_build_object('apikey', $2::text), timeout_milliseconds := 300) as id`,
      [`${stack.apiUrl}/functions/v1/slow`, stack.anonKey],
    );
    const timedOut = await response(slow.rows[0].id);
    expect(timedOut).toMatchObject({ status_code: null, timed_out: true });
    expect(timedOut.error_msg).toMatch(/^Timeout of 300 ms reached\. Total time: /);
    const closed = await freePort(); // nothing listens there
    const refused = await postgres.query(`select net.http_get($1) as id`, [`http://127.0.0.1:${closed}/`]);
    expect(await response(refused.rows[0].id)).toMatchObject({
      status_code: null,
      timed_out: false,
      error_msg: "Couldn't connect to server",
    });
  });

  it('runs a database webhook (supabase_functions.http_request) with the row, as the dashboard creates it', async () => {
    await postgres.query(`
      create trigger items_webhook after insert on public.items for each row
      execute function supabase_functions.http_request(
        '${stack.apiUrl}/functions/v1/echo/webhook', 'POST',
        '{"Content-Type": "application/json", "Authorization": "Bearer ${stack.serviceRoleKey}"}', '{}', '5000')`);
    try {
      const { rows } = await postgres.query(`insert into public.items (name) values ('hooked') returning id`);
      const hook = await waitFor('the hook row', async () => {
        const r = await postgres.query(`select * from supabase_functions.hooks where hook_name = 'items_webhook'`);
        return r.rows[0];
      });
      const res = await response(hook.request_id);
      expect(res.status_code).toBe(200);
      const sent = JSON.parse(JSON.parse(res.content).body);
      expect(sent).toEqual({
        type: 'INSERT',
        table: 'items',
        schema: 'public',
        record: { id: Number(rows[0].id), name: 'hooked' },
        old_record: null,
      });
    } finally {
      await postgres.query('drop trigger items_webhook on public.items');
    }
  });
});

describe('cron', () => {
  it('runs a job every N seconds as its user, records each run, and stops after unschedule', async () => {
    await postgres.query(
      'create table public.ticks (at timestamptz default now(), by_user text default current_user, session text default session_user)',
    );
    await postgres.query('grant insert on public.ticks to postgres');
    const { rows } = await postgres.query(
      `select cron.schedule('tick', '1 seconds', $$ insert into public.ticks default values $$) as jobid`,
    );
    const jobid = rows[0].jobid;
    await waitFor(
      'two ticks',
      async () => (await postgres.query('select count(*)::int as n from public.ticks')).rows[0].n >= 2,
    );
    const ticks = await postgres.query('select distinct by_user, session from public.ticks');
    expect(ticks.rows).toEqual([{ by_user: 'postgres', session: 'postgres' }]);
    const runs = await waitFor('a finished run', async () => {
      const r = await postgres.query(`select * from cron.job_run_details where jobid = $1 and status = 'succeeded'`, [
        jobid,
      ]);
      return r.rows.length ? r.rows : undefined;
    });
    expect(runs[0]).toMatchObject({
      username: 'postgres',
      database: 'postgres',
      command: ' insert into public.ticks default values ',
      return_message: 'INSERT 0 1',
    });
    expect(runs[0].end_time.getTime()).toBeGreaterThanOrEqual(runs[0].start_time.getTime());

    expect((await postgres.query(`select cron.unschedule('tick') as ok`)).rows[0].ok).toBe(true);
    const after = (
      await postgres.query(`select max(runid) as last from cron.job_run_details where jobid = $1`, [jobid])
    ).rows[0].last;
    // Another job ticking twice shows time passed: the unscheduled one has not run again.
    const marker = (await postgres.query(`select cron.schedule('marker', '1 seconds', 'select 1') as id`)).rows[0].id;
    await waitFor(
      'two marker runs',
      async () =>
        (
          await postgres.query(
            `select count(*)::int as n from cron.job_run_details where jobid = $1 and status = 'succeeded'`,
            [marker],
          )
        ).rows[0].n >= 2,
    );
    const later = (
      await postgres.query(`select max(runid) as last from cron.job_run_details where jobid = $1`, [jobid])
    ).rows[0].last;
    expect(later).toBe(after);
    const markerRun = await postgres.query(`select return_message from cron.job_run_details where jobid = $1 limit 1`, [
      marker,
    ]);
    expect(markerRun.rows[0].return_message).toBe('1 row');
    await postgres.query(`select cron.unschedule($1::bigint)`, [marker]);
  });

  it('records a failing command as failed with the error', async () => {
    const { rows } = await postgres.query(
      `select cron.schedule('fails', '1 seconds', 'select * from no_such_table') as id`,
    );
    const run = await waitFor('a failed run', async () => {
      const r = await postgres.query(`select * from cron.job_run_details where jobid = $1 and status = 'failed'`, [
        rows[0].id,
      ]);
      return r.rows[0];
    });
    expect(run.return_message).toMatch(/^ERROR: {2}relation "no_such_table" does not exist/);
    await postgres.query(`select cron.unschedule('fails')`);
  });

  it('takes standard cron syntax and refuses an invalid schedule with pg_cron’s error', async () => {
    for (const schedule of ['*/5 * * * *', '0 3 * * 1-5', '30 23 $ * *', '0 0 1 jan,jul *', '@hourly', '59 seconds']) {
      const { rows } = await postgres.query(`select cron.schedule('valid', $1, 'select 1') as id`, [schedule]);
      expect(rows[0].id, schedule).toBeTruthy();
    }
    // A named job is replaced, not duplicated.
    const named = await postgres.query(
      `select count(*)::int as n, max(schedule) as s from cron.job where jobname = 'valid'`,
    );
    expect(named.rows[0]).toEqual({ n: 1, s: '59 seconds' });
    await postgres.query(`select cron.unschedule('valid')`);
    for (const schedule of ['61 * * * *', '* * * *', '60 seconds', 'every minute']) {
      const err = await postgres.query(`select cron.schedule('bad', $1, 'select 1')`, [schedule]).catch((e) => e);
      expect(err.message, schedule).toBe(`invalid schedule: ${schedule}`);
      expect(err.hint).toBe("Use cron format (e.g. 5 4 * * *), or interval format '[1-59] seconds'");
    }
    const missing = await postgres.query(`select cron.unschedule('never-scheduled')`).catch((e) => e);
    expect(missing.message).toBe("could not find valid entry for job 'never-scheduled'");
  });

  it('alter_job pauses a job; only its owner sees and changes it', async () => {
    const { rows } = await postgres.query(`select cron.schedule('owned', '0 * * * *', 'select 1') as id`);
    await postgres.query('select cron.alter_job($1, active := false)', [rows[0].id]);
    expect((await postgres.query('select active from cron.job where jobid = $1', [rows[0].id])).rows[0].active).toBe(
      false,
    );
    // authenticated (another role) sees no one else's jobs and can't remove them.
    const c = await postgres.connect();
    try {
      await c.query('begin; set local role authenticated');
      const err = await c.query('select cron.unschedule($1::bigint)', [rows[0].id]).catch((e) => e);
      expect(err.message).toMatch(/permission denied for (schema cron|table job)/);
      await c.query('rollback');
    } finally {
      c.release();
    }
    await postgres.query(`select cron.unschedule('owned')`);
  });
});

describe('restart', () => {
  it('reconnects when its connection is cut, as by a Postgres restart, and sends what was queued meanwhile', async () => {
    await stack.sql(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'pg_net worker'`);
    const { rows } = await postgres.query(`select net.http_get($1) as id`, [`${stack.apiUrl}/functions/v1/open`]);
    expect((await response(rows[0].id)).status_code).toBe(200);
    await waitFor('the worker back', async () =>
      postgres.query('select net.check_worker_is_up()').then(
        () => true,
        () => false,
      ),
    );
  });

  it('keeps its jobs across a stop and start of the stack, and sends requests after it', async () => {
    const second = await startTestStack({ fixture: 'functions-project' });
    const { dir, project } = second;
    try {
      await second.sql(`create table public.beats (at timestamptz default now())`);
      await second.sql(`grant all on public.beats to postgres`);
      const db = new pg.Pool({ connectionString: second.dbUrl, max: 1 });
      await db.query(`select cron.schedule('beat', '1 seconds', 'insert into public.beats default values')`);
      await db.end();
      await second.stop();
      const again = await startStack({
        port: 0,
        dir,
        projectDir: project.projectDir,
        ephemeral: true,
        log: () => undefined,
      });
      try {
        const sql = new pg.Pool({ connectionString: again.dbUrl, max: 1 });
        try {
          const before = (await sql.query('select count(*)::int as n from public.beats')).rows[0].n;
          await waitFor(
            'beats after the restart',
            async () => (await sql.query('select count(*)::int as n from public.beats')).rows[0].n >= before + 2,
          );
          const { rows } = await sql.query(`select net.http_get($1) as id`, [`${again.apiUrl}/functions/v1/open`]);
          await waitFor(
            'the response after the restart',
            async () =>
              (await sql.query('select status_code from net._http_response where id = $1', [rows[0].id])).rows[0]
                ?.status_code === 200,
          );
        } finally {
          await sql.end();
        }
      } finally {
        await again.stop();
      }
    } finally {
      await second.teardown();
    }
  });
});
