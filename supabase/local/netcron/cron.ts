// pg_cron's background worker, done by the stack: runs each active cron.job on its schedule (UTC,
// pg_cron's default cron.timezone), one run of a job at a time, as the job's user, in a connection
// of its own, and records every run in cron.job_run_details as pg_cron does (citusdata/pg_cron
// src/pg_cron.c: ManageCronTask, GetTaskFeedback; job_metadata.c: MarkPendingRunsAsFailed).
import { Cron } from 'croner';
import type pg from 'pg';
import { createClient, isConnectionLost } from '../connections.ts';

interface JobRow {
  jobid: string;
  schedule: string;
  command: string;
  database: string;
  username: string;
  active: boolean;
}

interface Scheduled {
  job: JobRow;
  /** 'N seconds' jobs repeat every N seconds; others follow their cron pattern. */
  everyMs?: number;
  cron?: Cron;
  next?: number;
  running: boolean;
  queued: boolean;
}

const SECONDS = /^\s*([0-9]+)\s+seconds?\s*$/i;
const MACROS: Record<string, string> = { '@midnight': '0 0 * * *' };

/**
 * A schedule as croner reads it: pg_cron's `$` (last day of month) is croner's `L`. In UTC, as
 * pg_cron's default `cron.timezone`; as an offset of 0 rather than `timezone: 'UTC'`, which costs
 * the first job ~0.1 s of every start to set up Intl's time zones for the same next runs.
 */
function toCron(schedule: string): Cron | undefined {
  const s = schedule.trim().toLowerCase();
  if (s === '@reboot' || s === '@restart') return undefined;
  return new Cron((MACROS[s] ?? schedule.trim()).replace(/\$/g, 'L'), { utcOffset: 0, paused: true });
}

/** PQcmdStatus / "N rows", what pg_cron records for a run that succeeded. */
function returnMessage(result: pg.QueryResult | pg.QueryResult[]): string {
  const last = Array.isArray(result) ? result[result.length - 1] : result;
  if (!last) return '';
  if (last.fields?.length) return `${last.rows.length} ${last.rows.length === 1 ? 'row' : 'rows'}`;
  const n = last.rowCount ?? 0;
  if (last.command === 'INSERT') return `INSERT 0 ${n}`;
  if (['UPDATE', 'DELETE', 'MERGE', 'COPY', 'MOVE', 'FETCH', 'SELECT'].includes(last.command))
    return `${last.command} ${n}`;
  return last.command ?? '';
}

export function createScheduler(opts: {
  pool: pg.Pool;
  /** Superuser connection string; each run connects with it and becomes the job's user. */
  superuserUrl: string;
  log: (message: string) => void;
}) {
  const { pool, log } = opts;
  const jobs = new Map<string, Scheduled>();
  const runs = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let missing = false;
  let started = false;
  let unreachable = false;

  const nextFor = (s: Scheduled, from: number) =>
    s.everyMs ? from + s.everyMs : (s.cron?.nextRun(new Date(from))?.getTime() ?? undefined);

  async function runOnce(s: Scheduled) {
    const { job } = s;
    const client = createClient({ connectionString: opts.superuserUrl, application_name: 'pg_cron' });
    let runid: string | undefined;
    const finish = (status: 'succeeded' | 'failed', message: string) =>
      runid === undefined
        ? Promise.resolve()
        : pool
            .query(
              `update cron.job_run_details set status = $2, return_message = $3, end_time = now() where runid = $1`,
              [runid, status, message],
            )
            .then(() => undefined);
    try {
      await client.connect();
      const pid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
      runid = (
        await pool.query(
          `insert into cron.job_run_details (jobid, job_pid, database, username, command, status, start_time)
           values ($1, $2, $3, $4, $5, 'running', now()) returning runid`,
          [job.jobid, pid, job.database, job.username, job.command],
        )
      ).rows[0].runid;
      if (job.database !== 'postgres') throw new Error(`database "${job.database}" does not exist`);
      // pg_cron connects as the job's user; a superuser session becomes that user entirely.
      await client.query(`set session authorization ${client.escapeIdentifier(job.username)}`);
      await finish('succeeded', returnMessage(await client.query(job.command)));
      unreachable = false;
    } catch (err) {
      const message = `ERROR:  ${(err as Error).message}`;
      // While Postgres is away (restarting) every run fails the same way: said once per outage.
      const away = isConnectionLost(err);
      if (!away || !unreachable) {
        if (runid === undefined) log(`job ${job.jobid} could not start: ${(err as Error).message}`);
        else log(`job ${job.jobid} failed: ${(err as Error).message}`);
      }
      unreachable = away;
      await finish('failed', message).catch(() => undefined);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  function run(s: Scheduled) {
    if (s.running) {
      s.queued = true; // pg_cron: one instance of a job at a time; the next starts when it ends
      return;
    }
    s.running = true;
    const p = runOnce(s).finally(() => {
      runs.delete(p);
      s.running = false;
      if (s.queued && !stopped && jobs.get(s.job.jobid) === s) {
        s.queued = false;
        run(s);
      }
    });
    runs.add(p);
  }

  function tick() {
    if (stopped) return;
    const now = Date.now();
    for (const s of jobs.values()) {
      if (s.next === undefined || s.next > now) continue;
      s.next = nextFor(s, now); // runs missed while the stack was down are not made up, as pg_cron
      if (s.job.active) run(s);
    }
    timer = setTimeout(tick, 1000 - (Date.now() % 1000) + 5);
  }

  /** Reads cron.job again (on a change notification, on (re)connect). */
  async function reload() {
    let rows: JobRow[];
    try {
      rows = (await pool.query<JobRow>('select jobid, schedule, command, database, username, active from cron.job'))
        .rows;
      missing = false;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== '42P01' && code !== '3F000') log(`jobs: ${(err as Error).message}`);
      missing = true;
      rows = [];
    }
    const booting = !missing && !started;
    if (booting) started = true;
    // MarkPendingRunsAsFailed (pg_cron runs it as its launcher starts): runs cut short by a stop or a
    // crash. Here also on each reconnect, as Postgres may have restarted under a running stack; a run
    // started since then is still running.
    if (!missing)
      await pool
        .query(
          `update cron.job_run_details set status = 'failed', return_message = 'server restarted'
           where status in ('starting', 'running') and start_time < pg_postmaster_start_time()`,
        )
        .catch(() => undefined);
    const seen = new Set<string>();
    for (const job of rows) {
      seen.add(job.jobid);
      const had = jobs.get(job.jobid);
      if (had && had.job.schedule === job.schedule) {
        had.job = job;
        continue;
      }
      const s: Scheduled = { job, running: had?.running ?? false, queued: false };
      const seconds = SECONDS.exec(job.schedule);
      try {
        if (seconds) s.everyMs = Number(seconds[1]) * 1000;
        else s.cron = toCron(job.schedule);
      } catch (err) {
        log(`invalid pg_cron schedule for job ${job.jobid}: ${(err as Error).message}`);
        continue;
      }
      s.next = nextFor(s, Date.now());
      jobs.set(job.jobid, s);
      if (booting && !s.everyMs && !s.cron && job.active) run(s); // @reboot: once, when the scheduler starts
    }
    for (const id of jobs.keys()) if (!seen.has(id)) jobs.delete(id);
  }

  return {
    reload,
    start() {
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([...runs]);
    },
  };
}
