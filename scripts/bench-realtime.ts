// npm run bench:realtime — postgres_changes latency from a commit (a ticket inserted through PostgREST)
// to the event in the subscribed clients that RLS lets see it, with 1, 100 and 500 clients (agents of
// two workspaces and requesters, mixed); the stack process's memory per connection; and a broadcast
// round trip. The stack runs as `npm run stack` does, in its own process, on the realtime fixture.
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RealtimeClient, type RealtimeChannel } from '@supabase/realtime-js';
import pg from 'pg';
import { defaultKeys, freeBasePort, PROJECT_DIR, spawnManaged, STACK_CLI, stopChild } from '@tend/supabase-local';
import { accessToken } from './lib/jwt.ts';
import { tempProject } from './lib/project.ts';

const STAGES = [1, 100, 500];
const ROUNDS = 5;
const INSERTS_PER_ROUND = 6;
const BROADCASTS_PER_ROUND = 40;
const TARGET_P95 = { 1: 100, 500: 250 } as Record<number, number>;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;

/** Resident memory of a process (Linux /proc), in bytes. */
const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024;

const token = (sub: string) => accessToken(defaultKeys.jwtSecret, { sub }, 7200);

const uuid = (kind: number, n: number) => `${kind}0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

interface Subscriber {
  who: 'acme' | 'globex' | 'requester';
  user: string;
  client: RealtimeClient;
  /** ticket subject → arrival time (ms since epoch) and commit time */
  got: Map<string, { at: number; committed: number }>;
}

async function until(check: () => boolean, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function main() {
  const { projectDir, dataDir, remove } = tempProject('realtime-project');
  // A project with more room than the self-hosted defaults (200 users, 100 events/s), as a paid plan has.
  const configFile = path.join(projectDir, 'supabase', 'config.toml');
  writeFileSync(
    configFile,
    readFileSync(configFile, 'utf8').replace(
      '[realtime]\n',
      '[realtime]\nmax_concurrent_users = 2000\nmax_events_per_second = 100000\nmax_joins_per_second = 10000\n',
    ),
  );
  const port = await freeBasePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  let ready: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const stackProcess = spawnManaged(
    'stack',
    process.execPath,
    [STACK_CLI, 'start', '--port', String(port), '--dir', dataDir, '--project', projectDir],
    {
      cwd: PROJECT_DIR,
      logFile: path.join(path.dirname(dataDir), 'stack.log'),
      onLine: (l) => l.includes('is ready') && ready(),
    },
  );
  const clients: RealtimeClient[] = [];
  const sql = new pg.Pool({
    connectionString: `postgresql://supabase_admin:postgres@127.0.0.1:${port + 1}/postgres`,
    max: 2,
  });
  try {
    await Promise.race([isReady, stackProcess.exited.then(() => Promise.reject(new Error(stackProcess.tail())))]);
    const pid = stackProcess.child.pid!;

    // 500 subscribers: 100 agents of each workspace and 300 requesters (one client each).
    const people: Omit<Subscriber, 'client' | 'got'>[] = [];
    for (let i = 0; i < 500; i++) {
      const who = i % 5 === 1 ? 'acme' : i % 5 === 3 ? 'globex' : 'requester';
      people.push({ who, user: uuid(who === 'requester' ? 3 : who === 'acme' ? 1 : 2, i) });
    }
    people[0]!.who = 'acme'; // the single client of the first stage is an agent
    people[0]!.user = uuid(1, 0);
    await sql.query(
      `insert into public.agents (workspace_id, user_id) select case when u like '1%' then 1 else 2 end, u::uuid from unnest($1::text[]) u`,
      [people.filter((p) => p.who !== 'requester').map((p) => p.user)],
    );

    const subscribers: Subscriber[] = [];
    const join = async (person: (typeof people)[number]) => {
      const access = await token(person.user);
      const client = new RealtimeClient(`${apiUrl.replace('http', 'ws')}/realtime/v1`, {
        params: { apikey: defaultKeys.anonKey },
        accessToken: async () => access,
      });
      clients.push(client);
      await client.setAuth();
      const s: Subscriber = { ...person, client, got: new Map() };
      let live = false;
      const channel: RealtimeChannel = client
        .channel('inbox')
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'tickets' }, (p) => {
          const row = p.new as { subject: string };
          s.got.set(row.subject, { at: Date.now(), committed: Date.parse(p.commit_timestamp) });
        })
        .on('system', {}, (p: { status: string }) => (live = p.status === 'ok'));
      channel.subscribe();
      await until(() => live, 'a subscription', 60_000);
      subscribers.push(s);
    };

    const baseline = rss(pid);
    const latencyRows: Record<string, string | number>[] = [];
    const memoryRows: Record<string, string | number>[] = [];
    let misdelivered = 0;
    let seq = 0;
    for (const stage of STAGES) {
      for (let i = subscribers.length; i < stage; i += 50)
        await Promise.all(people.slice(i, Math.min(stage, i + 50)).map(join));
      const now = rss(pid);
      const previous = memoryRows.at(-1);
      // The first client's share is mostly warm-up (code paths, pools): count per connection from there.
      memoryRows.push({
        clients: stage,
        'stack RSS MB': (now / 2 ** 20).toFixed(1),
        'KB per added connection': previous
          ? ((now - Number(previous.bytes)) / (stage - Number(previous.clients)) / 1024).toFixed(1)
          : '',
        bytes: now,
      });
      const requesters = subscribers.filter((s) => s.who === 'requester');
      const p50s: number[] = [];
      const p95s: number[] = [];
      const fromRequest: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const latencies: number[] = [];
        for (let n = 0; n < INSERTS_PER_ROUND; n++) {
          // A requester (one with a client when there are any) opens a ticket in Acme through PostgREST.
          const requester = requesters.length ? requesters[(seq * 7) % requesters.length]!.user : uuid(3, 9999);
          const subject = `bench ${++seq}`;
          const sent = Date.now();
          const res = await fetch(`${apiUrl}/rest/v1/tickets`, {
            method: 'POST',
            headers: {
              apikey: defaultKeys.anonKey,
              authorization: `Bearer ${await token(requester)}`,
              'content-type': 'application/json',
              prefer: 'return=minimal',
            },
            body: JSON.stringify({ workspace_id: 1, requester_id: requester, subject }),
          });
          if (res.status !== 201) throw new Error(`insert: ${res.status} ${await res.text()}`);
          const expected = subscribers.filter((s) => s.who === 'acme' || s.user === requester);
          await until(
            () => expected.every((s) => s.got.has(subject)),
            `${subject} at ${expected.length} clients`,
            30_000,
          );
          for (const s of expected) {
            const { at, committed } = s.got.get(subject)!;
            latencies.push(at - committed);
            fromRequest.push(at - sent);
          }
          misdelivered += subscribers.filter((s) => !expected.includes(s) && s.got.has(subject)).length;
        }
        p50s.push(percentile(latencies, 50));
        p95s.push(percentile(latencies, 95));
      }
      latencyRows.push({
        clients: stage,
        'receivers per change': subscribers.filter((s) => s.who === 'acme').length + (requesters.length ? 1 : 0),
        'p50 (median of rounds)': ms(median(p50s)),
        'p50 spread': spread(p50s),
        'p95 (median of rounds)': ms(median(p95s)),
        'p95 spread': spread(p95s),
        'p95 from request sent': ms(percentile(fromRequest, 95)),
        target: TARGET_P95[stage] ? `p95 ≤ ${TARGET_P95[stage]} ms` : '',
      });
    }

    // Broadcast round trip: one client sends, another on the same topic receives.
    const [a, b] = [clients[0]!, clients[1]!];
    let received = 0;
    const sender = a.channel('bench-room', { config: { broadcast: { ack: true } } });
    const receiver = b.channel('bench-room').on('broadcast', { event: 'ping' }, () => received++);
    await new Promise<void>((r) => sender.subscribe((s) => s === 'SUBSCRIBED' && r()));
    await new Promise<void>((r) => receiver.subscribe((s) => s === 'SUBSCRIBED' && r()));
    const roundTrips: number[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const times: number[] = [];
      for (let i = 0; i < BROADCASTS_PER_ROUND; i++) {
        const t0 = performance.now();
        const want = received + 1;
        await sender.send({ type: 'broadcast', event: 'ping', payload: { i } });
        await until(() => received >= want, 'a broadcast', 10_000);
        times.push(performance.now() - t0);
      }
      roundTrips.push(times);
    }

    console.log(
      `bench:realtime — ${ROUNDS} rounds × ${INSERTS_PER_ROUND} inserts per stage, ${os.cpus().length} CPUs, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log('\npostgres_changes: commit (commit_timestamp) → event in each client RLS lets see the ticket');
    console.table(latencyRows);
    console.log(`clients that got a ticket RLS should have hidden from them: ${misdelivered}`);
    console.log('\nmemory of the stack process (gateway + realtime + the other services) as clients join');
    console.log(`  before any client: ${(baseline / 2 ** 20).toFixed(1)} MB`);
    console.table(memoryRows.map(({ bytes: _b, ...row }) => row));
    console.log(
      `\nbroadcast round trip (send → another client receives, 500 clients connected): p50 ${ms(median(roundTrips.map((t) => percentile(t, 50))))} (rounds ${spread(roundTrips.map((t) => percentile(t, 50)))}), p95 ${ms(median(roundTrips.map((t) => percentile(t, 95))))} (rounds ${spread(roundTrips.map((t) => percentile(t, 95)))})`,
    );
  } finally {
    for (const c of clients) c.disconnect();
    await sql.end();
    await stopChild(stackProcess, 'SIGINT', 20_000);
    remove();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
