// `net` and `cron` served by the stack: the SQL interface of pg_net and pg_cron lives in the
// database (extensions.ts installs it), the work their background workers do happens here. One
// connection LISTENs for wake-ups (a request queued, a job changed); it reconnects after a Postgres
// restart and then catches up, so nothing queued is lost.
import type pg from 'pg';
import { createClient } from '../connections.ts';
import { createScheduler } from './cron.ts';
import { createNetWorker } from './net.ts';

export { installExtensions } from './extensions.ts';

export interface NetCronOptions {
  superuserUrl: string;
  pool: pg.Pool;
  log: (service: 'net' | 'cron', message: string) => void;
}

const POLL_MS = 1000; // a missed notification costs at most this long

export async function startNetCron(opts: NetCronOptions): Promise<{ stop(): Promise<void> }> {
  const net = createNetWorker(opts.pool, (m) => opts.log('net', m));
  const cron = createScheduler({ pool: opts.pool, superuserUrl: opts.superuserUrl, log: (m) => opts.log('cron', m) });
  let stopped = false;
  let listener: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  async function connect() {
    if (stopped) return;
    // check_worker_is_up() and wait_until_running() look for this application_name.
    const c = createClient({ connectionString: opts.superuserUrl, application_name: 'pg_net worker' }, () => again());
    function again() {
      if (listener === c) listener = undefined;
      c.end().catch(() => undefined);
      if (stopped || retry) return;
      retry = setTimeout(() => {
        retry = undefined;
        void connect();
      }, POLL_MS);
    }
    c.on('end', again);
    c.on('notification', (n) => void (n.channel === 'pg_cron_jobs' ? cron.reload() : net.drain()));
    try {
      await c.connect();
      await c.query('listen pg_net_wake; listen pg_cron_jobs');
      listener = c;
      await Promise.all([net.drain(), cron.reload()]);
    } catch {
      again();
    }
  }

  await connect();
  cron.start();
  // Polling backs up the notifications (and expires old responses, as pg_net.ttl).
  const poll = setInterval(() => void net.drain(), POLL_MS);
  const expire = setInterval(() => void net.expire(), 60_000);
  poll.unref();
  expire.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(poll);
      clearInterval(expire);
      clearTimeout(retry);
      await cron.stop();
      await net.settle();
      await listener?.end().catch(() => undefined);
    },
  };
}
