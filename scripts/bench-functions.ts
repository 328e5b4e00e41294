// npm run bench:functions — a trivial Edge Function on the local stack: cold start (first request
// to a fresh worker) and warm latency, beside the same round trip to PostgREST through the same
// gateway (a one-row select). Sequential requests, interleaved, several rounds; prints medians,
// p95 and their spread. Targets (issue 17): warm p95 ≤ 2× the direct call, cold start ≤ 500 ms.
// Then Tend's own notify on a stack of this project: cold and warm calls (a reply already mailed,
// so the function's reads and its claim, without SMTP), and an agent's reply committed through
// PostgREST → the customer's email in the mail catcher (trigger, pg_net, notify, SMTP; target p95 ≤ 2 s).
import { utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '@tend/supabase-local';
import { emailStack } from './lib/email-stack.ts';
import { tempProject } from './lib/project.ts';

const ROUNDS = 5;
const WARM_PER_ROUND = 200;
const COLD_SAMPLES = 10;
const NOTIFY_WARM = 100;
const EMAIL_SAMPLES = 40;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pct = (xs: number[], p: number) => {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t0;
}

async function main() {
  const project = tempProject('functions-project');
  const fnDir = path.join(project.projectDir, 'supabase', 'functions', 'trivial');
  mkdirSync(fnDir, { recursive: true });
  const entry = path.join(fnDir, 'index.ts');
  writeFileSync(entry, 'Deno.serve(() => Response.json({ ok: true }));\n');
  const stack = await startStack({
    port: 0,
    dir: project.dataDir,
    projectDir: project.projectDir,
    ephemeral: true,
    log: () => undefined,
  });
  const headers = { apikey: stack.anonKey };
  const fnUrl = `${stack.apiUrl}/functions/v1/trivial`;
  const restUrl = `${stack.apiUrl}/rest/v1/items?select=id,name&limit=1`;
  try {
    // Cold: each sample changes the function's stamp, so the next request starts a new worker.
    await timed(fnUrl, headers); // Deno's own first compile of the boot script, not counted
    const cold: number[] = [];
    for (let i = 0; i < COLD_SAMPLES; i++) {
      const t = new Date(Date.now() + (i + 1) * 1000);
      utimesSync(entry, t, t);
      cold.push(await timed(fnUrl, headers));
    }

    const rounds: { fn50: number; fn95: number; rest50: number; rest95: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const fn: number[] = [];
      const rest: number[] = [];
      for (let i = 0; i < 10; i++) await timed(fnUrl, headers); // warm this worker up
      for (let i = 0; i < WARM_PER_ROUND; i++) {
        // Interleaved, so drift in the machine's speed hits both alike.
        fn.push(await timed(fnUrl, headers));
        rest.push(await timed(restUrl, headers));
      }
      rounds.push({ fn50: pct(fn, 50), fn95: pct(fn, 95), rest50: pct(rest, 50), rest95: pct(rest, 95) });
    }
    const med = (k: keyof (typeof rounds)[number]) =>
      pct(
        rounds.map((x) => x[k]),
        50,
      );
    const spread = (k: keyof (typeof rounds)[number]) =>
      `${ms(Math.min(...rounds.map((x) => x[k])))}–${ms(Math.max(...rounds.map((x) => x[k])))}`;
    const ratio95 = rounds.map((x) => x.fn95 / x.rest95);
    const ratio50 = rounds.map((x) => x.fn50 / x.rest50);

    console.log(
      `bench:functions — ${ROUNDS} rounds of ${WARM_PER_ROUND} sequential warm requests each (interleaved), ${COLD_SAMPLES} cold starts; ${os.cpus().length} CPUs, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `  cold start (first request to a new worker)   median ${ms(pct(cold, 50))}  p95 ${ms(pct(cold, 95))}  (min ${ms(Math.min(...cold))}, max ${ms(Math.max(...cold))})  target ≤ 500 ms`,
    );
    console.log(
      `  warm function   p50 ${ms(med('fn50'))} (${spread('fn50')})  p95 ${ms(med('fn95'))} (${spread('fn95')})`,
    );
    console.log(
      `  direct REST     p50 ${ms(med('rest50'))} (${spread('rest50')})  p95 ${ms(med('rest95'))} (${spread('rest95')})`,
    );
    console.log(
      `  ratio function / REST   p50 ${pct(ratio50, 50).toFixed(2)}×   p95 ${pct(ratio95, 50).toFixed(2)}× (rounds: ${ratio95.map((x) => x.toFixed(2)).join(', ')})  target p95 ≤ 2×`,
    );
  } finally {
    await stack.stop();
    project.remove();
  }
}

/** notify cold/warm, and reply → email, on a stack of this project (its migrations, seed and functions). */
async function benchNotify() {
  const { stack, envFile, rpc, mails, ticketId, agent, stop } = await emailStack('notify');
  const ticket = { id: ticketId };
  try {
    // Reply → email: from post_message's answer to the email in the catcher's API.
    const toEmail: number[] = [];
    for (let i = 0; i <= EMAIL_SAMPLES; i++) {
      const before = await mails();
      const t0 = performance.now();
      await rpc('post_message', agent, { p_ticket_id: ticket.id, p_body: `Reply ${i}` });
      while ((await mails()) <= before) await new Promise((r) => setTimeout(r, 2));
      if (i > 0) toEmail.push(performance.now() - t0); // the first one starts notify's worker
    }
    const { id: mailed } = await rpc('post_message', agent, { p_ticket_id: ticket.id, p_body: 'Mailed already' });
    const call = async () => {
      const t0 = performance.now();
      const res = await fetch(`${stack.apiUrl}/functions/v1/notify`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${stack.serviceRoleKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ type: 'message', message_id: mailed }),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`notify: ${res.status}`);
      return performance.now() - t0;
    };
    while ((await mails()) < EMAIL_SAMPLES + 2) await new Promise((r) => setTimeout(r, 5));
    const cold: number[] = [];
    for (let i = 0; i < COLD_SAMPLES; i++) {
      writeFileSync(envFile, `# bench ${i}\n`); // a changed env file: the next call starts a new worker
      cold.push(await call());
    }
    const warm: number[] = [];
    for (let i = 0; i < 10; i++) await call();
    for (let i = 0; i < NOTIFY_WARM; i++) warm.push(await call());
    console.log(
      `  notify cold (new worker, npm: imports cached)   median ${ms(pct(cold, 50))}  p95 ${ms(pct(cold, 95))}  (min ${ms(Math.min(...cold))}, max ${ms(Math.max(...cold))})`,
    );
    console.log(
      `  notify warm (already mailed: reads + claim, ${NOTIFY_WARM} calls)   p50 ${ms(pct(warm, 50))}  p95 ${ms(pct(warm, 95))}`,
    );
    console.log(
      `  reply committed → email in the catcher (${EMAIL_SAMPLES} replies)   p50 ${ms(pct(toEmail, 50))}  p95 ${ms(pct(toEmail, 95))}  (min ${ms(Math.min(...toEmail))}, max ${ms(Math.max(...toEmail))})  target p95 ≤ 2 s`,
    );
  } finally {
    await stop();
  }
}

main()
  .then(benchNotify)
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
