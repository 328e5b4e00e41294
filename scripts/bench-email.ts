// npm run bench:email — a team's reply committed → the customer's email in the mail catcher, on a stack
// of this project (trigger, pg_net, notify with the branded layout, SMTP), for a reply without files and
// one with two 2 MB attachments, interleaved, several rounds; prints p50 and p95 per round and the
// medians of the rounds, with the machine's load. Target (issue 29): p95 ≤ 1 s with the two files.
// Where the time goes: notify logs when each of its steps ended (NOTIFY_TIMINGS), and the bench prints
// the median of each step per kind: the commit (post_message's answer), the queue (pg_net to notify),
// notify reading the thread, reading the files and the rest of the email, building it (MIME, base64),
// SMTP to the catcher, and the catcher storing it until its API counts it. CPU per email (ms, user +
// system, medians): this process (it runs the stack's gateway, storage and mail catcher, and the poll),
// the functions (notify's Deno worker) and the database (Postgres, PostgREST), from /proc.
// Then the catcher alone: one raw 5.6 MB message with the two files sent over SMTP from this process,
// wall time until its 250 and the catcher's CPU per message (this process's: the client only writes a
// prepared payload); with BENCH_BASELINE=<another checkout, its node_modules installed> that
// checkout's catcher too, in alternating rounds, and the ratios. BENCH_ROUNDS (3) and BENCH_PER_ROUND
// (8) size the first part; BENCH_ONLY=catcher runs the second alone. Then the catcher with notice-sized messages
// as notify sends them (catcherNotices; BENCH_ONLY=catcher-notices runs it alone).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import { startMail, type RunningMail } from '@tend/supabase-local';
import { BASELINE, cpuMs, superuser } from './lib/bench.ts';
import { AGENT, CUSTOMER, emailStack } from './lib/email-stack.ts';
import { accessToken } from './lib/jwt.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 8);
const FILE_BYTES = 2 * 1024 * 1024;
const ACME = 'd0000000-0000-4000-8000-000000000a01';

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const ms = (x: number) => `${x.toFixed(0)} ms`;
const median = (xs: number[]) => pct(xs, 50);
const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** notify's marks per message id (epoch ms): start, loaded, read, built, sent. */
const marks = new Map<string, Record<string, number>>();
const STEPS = ['commit', 'queue', 'load', 'read', 'build', 'smtp', 'catcher'] as const;
type Steps = Record<(typeof STEPS)[number], number>;
const GROUPS = ['stack', 'functions', 'database'] as const;
type Cpu = Record<(typeof GROUPS)[number], number>;

async function main() {
  const only = process.env.BENCH_ONLY;
  if (!only || only === 'notices') await notices();
  if (!only) await replies();
  if (!only || only === 'catcher') await catcherAlone();
  if (!only || only === 'catcher' || only === 'catcher-notices') await catcherNotices();
}

const NOTICE_ROUNDS = Number(process.env.BENCH_NOTICE_ROUNDS ?? 4);
const NOTICES = Number(process.env.BENCH_NOTICES ?? 40);
// Notices a second, each committed by a transaction of its own as a ticket's creation commits its assignee's
// (bench:rules creates ~50 a second here); 0: all of them in one statement (as before docs/decisions/101-notification-emails-in-batches.md).
const NOTICE_RATE = Number(process.env.BENCH_NOTICE_RATE ?? 50);
const AGENT3 = 'a0000000-0000-4000-8000-000000000003';

/**
 * Issue 28: what one notification emailed "each time" costs the machine (an assignment's, as bench:rules sends
 * one a ticket): BENCH_NOTICES notices a round, each on a ticket of its own (private.notify_member, as a
 * creating transaction calls it), until the catcher has them all; CPU per email by process: this one (the
 * gateway, auth, the pg_net worker, the catcher, and the bench's polls of the catcher), notify's
 * Deno worker, Postgres, PostgREST. With BENCH_BASELINE a second stack runs that checkout's project (its
 * functions and migrations), the rounds alternating, and the ratios per round.
 */
async function notices() {
  const stacks = [{ label: 'this checkout', ...(await emailStack('notices')) }];
  if (BASELINE) stacks.push({ label: 'baseline', ...(await emailStack('notices-base', { projectDir: BASELINE })) });
  type Split = { self: number; deno: number; postgres: number; postgrest: number };
  const rounds = new Map(stacks.map((s) => [s, [] as Split[]]));
  // The children's CPU, then this process's: read so that the reading of /proc (every process of the machine)
  // falls outside the interval measured.
  const children = (stack: (typeof stacks)[number]['stack']) => {
    const procs = stack.processes();
    const of = (f: (name: string) => boolean) => cpuMs(procs.filter((p) => f(p.name)).map((p) => p.pid)) ?? NaN;
    return {
      deno: of((n) => n.startsWith('deno')),
      postgres: of((n) => n === 'postgres'),
      postgrest: of((n) => n === 'postgrest'),
    };
  };
  // Each notice on a ticket of its own (one per person, ticket and transaction), each committed alone at
  // NOTICE_RATE a second (or all in one statement with BENCH_NOTICE_RATE=0).
  const tickets = new Map<(typeof stacks)[number], string[]>();
  for (const s of stacks) {
    const customer = await accessToken(s.stack.jwtSecret, { sub: CUSTOMER.id, email: CUSTOMER.email });
    const ids: string[] = [];
    for (let i = 0; i < NOTICES; i++)
      ids.push(
        (
          await s.rpc('create_ticket', customer, {
            p_workspace_slug: 'acme',
            p_subject: `Bench ${i}`,
            p_body: 'Notices.',
          })
        )[0].id,
      );
    tickets.set(s, ids);
  }
  const batch = async (s: (typeof stacks)[number], n: number) =>
    superuser(s.stack, async (c) => {
      // Landed: each notification's emailed_at is set once the catcher acknowledged its email (as bench:rules
      // waits). Not the catcher's search: reading the mailbox is a reader's work, not the email's.
      const count = async () =>
        (
          await c.query<{ n: number }>(
            `select count(*)::int as n from notifications
              where ticket_id = any($1::uuid[]) and kind = 'assigned' and emailed_at is not null`,
            [tickets.get(s)!.slice(0, n)],
          )
        ).rows[0]!.n;
      const before = await count();
      const c0 = children(s.stack);
      const self0 = ownCpu();
      const ids = tickets.get(s)!.slice(0, n);
      if (!NOTICE_RATE)
        await c.query(`select private.notify_member($1, $2, 'assigned', t, null, null) from unnest($3::uuid[]) t`, [
          ACME,
          AGENT3,
          ids,
        ]);
      else {
        const start = performance.now();
        for (const [i, id] of ids.entries()) {
          const due = start + (i * 1000) / NOTICE_RATE - performance.now();
          if (due > 0) await new Promise((r) => setTimeout(r, due));
          await c.query(`select private.notify_member($1, $2, 'assigned', $3, null, null)`, [ACME, AGENT3, id]);
        }
      }
      while ((await count()) < before + n) await new Promise((r) => setTimeout(r, 100));
      const self = ownCpu() - self0;
      const c1 = children(s.stack);
      return {
        self: self / n,
        deno: (c1.deno - c0.deno) / n,
        postgres: (c1.postgres - c0.postgres) / n,
        postgrest: (c1.postgrest - c0.postgrest) / n,
      } satisfies Split;
    });
  try {
    for (const s of stacks) await batch(s, 5); // warm-up: notify's worker starts
    for (let r = 0; r < NOTICE_ROUNDS; r++)
      for (const s of r % 2 ? [...stacks].reverse() : stacks) rounds.get(s)!.push(await batch(s, NOTICES));
    console.log(
      `\nNotices emailed each time ("assigned"): ${NOTICE_ROUNDS} rounds of ${NOTICES}${BASELINE ? ', alternating with the baseline' : ''}; CPU ms per email (10 ms ticks for the children, medians of the rounds); load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const total = (x: Split) => x.self + x.deno + x.postgres + x.postgrest;
    for (const s of stacks) {
      const xs = rounds.get(s)!;
      const of = (f: (x: Split) => number) => median(xs.map(f)).toFixed(1);
      console.log(
        `  ${s.label}: this process ${of((x) => x.self)} · notify (Deno) ${of((x) => x.deno)} · Postgres ${of((x) => x.postgres)} · PostgREST ${of((x) => x.postgrest)} · all ${of(total)} (rounds ${xs.map((x) => total(x).toFixed(1)).join(', ')})`,
      );
    }
    if (stacks.length === 2) {
      const [mine, base] = stacks.map((s) => rounds.get(s)!);
      const ratios = mine!.map((x, i) => total(x) / total(base![i]!));
      console.log(
        `  this checkout ÷ baseline, all CPU per email by round: ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)}); notify (Deno) ${mine!.map((x, i) => (x.deno / base![i]!.deno).toFixed(2)).join(', ')}`,
      );
    }
  } finally {
    for (const s of stacks) await s.stop();
  }
}

async function replies() {
  const { stack, rpc, mails, ticketId, agent, stop } = await emailStack('email', {
    functionsEnv: 'NOTIFY_TIMINGS=1\n',
    log: (line) => {
      const m = /notify timings ([0-9a-f-]{36}) (\{.*\})/.exec(line);
      if (m) marks.set(m[1], JSON.parse(m[2]));
    },
  });
  try {
    const bytes = new Uint8Array(FILE_BYTES).fill(0x25);
    /** Two 2 MB files uploaded as the agent, as the composer does before posting. */
    const upload = async () =>
      Promise.all(
        ['report.pdf', 'photo.png'].map(async (name) => {
          const id = crypto.randomUUID();
          const key = `${AGENT.id}/${ACME}/${ticketId}/${id}/${name}`;
          const res = await fetch(`${stack.apiUrl}/storage/v1/object/attachments/${key}`, {
            method: 'POST',
            headers: {
              apikey: stack.anonKey,
              Authorization: `Bearer ${agent}`,
              'Content-Type': name.endsWith('.pdf') ? 'application/pdf' : 'image/png',
            },
            body: bytes,
          });
          if (!res.ok) throw new Error(`upload: ${res.status} ${await res.text()}`);
          return { id, file_name: name, storage_name: name };
        }),
      );
    const steps: { plain: Steps[]; files: Steps[] } = { plain: [], files: [] };
    const cpu: { plain: Cpu[]; files: Cpu[] } = { plain: [], files: [] };
    const sample = (): Cpu => {
      const procs = stack.processes();
      const pids = (deno: boolean) => procs.filter((p) => p.name.startsWith('deno') === deno).map((p) => p.pid);
      return { stack: ownCpu(), functions: cpuMs(pids(true)) ?? NaN, database: cpuMs(pids(false)) ?? NaN };
    };
    /** From post_message's call to the email in the catcher's API; its steps from notify's marks. */
    const reply = async (body: string, files: unknown[] | null, kind?: 'plain' | 'files') => {
      const before = await mails();
      const cpu0 = sample();
      const t0 = performance.now();
      const at0 = Date.now();
      const message = await rpc('post_message', agent, { p_ticket_id: ticketId, p_body: body, p_attachments: files });
      const committed = Date.now();
      // Every 10 ms: the catcher shares the stack's process with storage and the gateway, and a 2 ms poll
      // (each a search over every stored email) slowed the very delivery it waited for.
      while ((await mails()) <= before) await new Promise((r) => setTimeout(r, 10));
      const took = performance.now() - t0;
      const seen = Date.now();
      const cpu1 = sample();
      if (kind)
        cpu[kind].push({
          stack: cpu1.stack - cpu0.stack,
          functions: cpu1.functions - cpu0.functions,
          database: cpu1.database - cpu0.database,
        });
      const m = marks.get(message.id);
      if (kind && m)
        steps[kind].push({
          commit: committed - at0,
          queue: m.start - committed,
          load: m.loaded - m.start,
          read: m.read - m.loaded,
          build: m.built - m.read,
          smtp: m.sent - m.built,
          catcher: seen - m.sent,
        });
      return took;
    };
    await reply('Warm-up', await upload()); // the first one starts notify's worker
    const rounds: { plain: number[]; files: number[] }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const round = { plain: [] as number[], files: [] as number[] };
      for (let i = 0; i < PER_ROUND; i++) {
        round.plain.push(await reply(`Plain ${r}.${i}`, null, 'plain'));
        round.files.push(await reply(`With files ${r}.${i}`, await upload(), 'files'));
      }
      rounds.push(round);
    }
    console.log(
      `bench:email — ${ROUNDS} rounds of ${PER_ROUND} replies of each kind, interleaved; ${os.cpus().length} CPUs, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    for (const [i, r] of rounds.entries())
      console.log(
        `  round ${i + 1}: no files p50 ${ms(pct(r.plain, 50))} p95 ${ms(pct(r.plain, 95))} · two 2 MB files p50 ${ms(pct(r.files, 50))} p95 ${ms(pct(r.files, 95))}`,
      );
    const med = (f: (r: (typeof rounds)[number]) => number) => pct(rounds.map(f), 50);
    const plain95 = med((r) => pct(r.plain, 95));
    const files95 = med((r) => pct(r.files, 95));
    console.log(
      `  median of rounds: no files p50 ${ms(med((r) => pct(r.plain, 50)))} p95 ${ms(plain95)} · two 2 MB files p50 ${ms(med((r) => pct(r.files, 50)))} p95 ${ms(files95)} (${(files95 / plain95).toFixed(2)}×)  target p95 ≤ 1 s with files`,
    );
    // Clock steps across processes (Date.now, ms): medians of all replies of each kind.
    for (const kind of ['plain', 'files'] as const)
      console.log(
        `  where the time goes (${kind === 'plain' ? 'no files' : 'two 2 MB files'}, medians of ${steps[kind].length}): ${STEPS.map(
          (k) =>
            `${k} ${ms(
              pct(
                steps[kind].map((x) => x[k]),
                50,
              ),
            )}`,
        ).join(' · ')}`,
      );
    for (const kind of ['plain', 'files'] as const) {
      const of = (g: (typeof GROUPS)[number]) => median(cpu[kind].map((c) => c[g]));
      const total = median(cpu[kind].map((c) => c.stack + c.functions + c.database));
      console.log(
        `  CPU per email (${kind === 'plain' ? 'no files' : 'two 2 MB files'}, medians of ${cpu[kind].length}): this process (gateway, storage, catcher, poll) ${ms(of('stack'))} · functions ${ms(of('functions'))} · database ${ms(of('database'))} · all ${ms(total)}`,
      );
    }
    // Issue 29's other figure: the HTML of an email that quotes 5 earlier messages of ~3 200 characters
    // each (as tests/unit/email-layout.test.ts renders it), here as the customer's catcher has it.
    const long = 'A paragraph of a real support answer, with some detail about what was tried. '.repeat(20);
    for (let i = 0; i < 6; i++) await reply(`${long}\n\n${long}`, null);
    const q = encodeURIComponent(`to:${CUSTOMER.email} reply-to:reply+`);
    const latest = (await (await fetch(`${stack.mailUrl}/api/v1/message/latest?query=${q}`)).json()) as {
      HTML: string;
    };
    console.log(
      `  the HTML of a 5-message thread's email (each message ${2 * long.length + 2} characters): ${(Buffer.byteLength(latest.HTML) / 1024).toFixed(1)} KB (target ≤ 60 KB)`,
    );
    console.log(
      `  load after: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await stop();
  }
}

/** One message over SMTP by hand (EHLO, MAIL, RCPT, DATA with the stuffed payload, QUIT); resolves on DATA's 250. */
function smtpSend(port: number, payload: Buffer): Promise<void> {
  const steps = ['EHLO bench.local', 'MAIL FROM:<support@acme.test>', 'RCPT TO:<customer@example.test>', 'DATA'];
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let pending = '';
    let sent = false;
    socket.on('error', reject);
    socket.on('data', (d) => {
      pending += d.toString('latin1');
      const lines = pending.split('\r\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!/^\d{3} /.test(line)) continue; // a continuation line (EHLO's)
        if (!/^[23]/.test(line)) return reject(new Error(`SMTP: ${line}`));
        if (steps.length) socket.write(`${steps.shift()}\r\n`);
        else if (!sent) {
          sent = true;
          socket.write(payload);
        } else {
          socket.end('QUIT\r\n');
          resolve();
        }
      }
    });
  });
}

const ALONE_ROUNDS = 5;
const ALONE_PER_ROUND = 6;

/** The catcher alone: the same raw message with the two files, over SMTP, to this checkout's catcher (and the baseline's). */
async function catcherAlone() {
  const bytes = new Uint8Array(FILE_BYTES).fill(0x25);
  const built = await nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }).sendMail({
    from: '"Acme Support" <support@acme.test>',
    to: 'customer@example.test',
    subject: 'Re: Bench [#1]',
    text: 'With files.',
    html: `<p>With files.</p>${'<p>The conversation so far.</p>'.repeat(1000)}`,
    attachments: [
      { filename: 'report.pdf', content: Buffer.from(bytes), contentType: 'application/pdf' },
      { filename: 'photo.png', content: Buffer.from(bytes), contentType: 'image/png' },
    ],
  });
  const raw = built.message as Buffer;
  const dirs: string[] = [];
  const catcher = async (start: typeof startMail) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-catcher-'));
    dirs.push(dir);
    return start({ port: 0, dir, smtpPort: 0, log: () => undefined });
  };
  const targets: { label: string; mail: RunningMail; wall: number[]; cpu: number[] }[] = [
    { label: 'this checkout', mail: await catcher(startMail), wall: [], cpu: [] },
  ];
  if (BASELINE) {
    const base = (await import(path.join(BASELINE, 'supabase/local/mail/index.ts'))) as { startMail: typeof startMail };
    targets.push({ label: 'baseline', mail: await catcher(base.startMail), wall: [], cpu: [] });
  }
  // The DATA payload, dot-stuffed once: the client's own work is one write, so this process's CPU is the catcher's.
  const payload = Buffer.concat([
    Buffer.from(raw.toString('latin1').replace(/^\./gm, '..'), 'latin1'),
    Buffer.from('.\r\n'),
  ]);
  const send = (t: (typeof targets)[number]) => smtpSend(t.mail.smtpPort!, payload);
  try {
    for (const t of targets) await send(t); // warm-up: loads mailparser
    for (let r = 0; r < ALONE_ROUNDS; r++)
      for (const t of r % 2 ? [...targets].reverse() : targets)
        for (let i = 0; i < ALONE_PER_ROUND; i++) {
          const cpu0 = ownCpu();
          const t0 = performance.now();
          await send(t);
          t.wall.push(performance.now() - t0);
          t.cpu.push(ownCpu() - cpu0);
        }
    console.log(
      `\nThe catcher alone: a ${(raw.length / 1e6).toFixed(1)} MB message (two 2 MB files) over SMTP until its 250, ${ALONE_ROUNDS} rounds of ${ALONE_PER_ROUND}${BASELINE ? ', alternating with the baseline' : ''}; load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    for (const t of targets)
      console.log(
        `  ${t.label}: p50 ${ms(pct(t.wall, 50))} p95 ${ms(pct(t.wall, 95))} (range ${ms(Math.min(...t.wall))}–${ms(Math.max(...t.wall))}) · catcher CPU per message ${ms(median(t.cpu))} (range ${ms(Math.min(...t.cpu))}–${ms(Math.max(...t.cpu))})`,
      );
    if (targets.length === 2)
      console.log(
        `  baseline ÷ this checkout: p50 ${(pct(targets[1].wall, 50) / pct(targets[0].wall, 50)).toFixed(1)}× · CPU ${(median(targets[1].cpu) / median(targets[0].cpu)).toFixed(1)}×`,
      );
  } finally {
    for (const t of targets) await t.mail.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

const NOTICE_SENDS = Number(process.env.BENCH_CATCHER_NOTICES ?? 1000);

/**
 * The catcher alone, for an assignee's email (issue 28: one a ticket in bench:rules): BENCH_CATCHER_NOTICES copies of
 * a notice-sized message (the thread email's pinned HTML) sent as notify sends them, over nodemailer's pool of two
 * connections, by a process of its own (scripts/catcher-load.ts), so this process's CPU is the catcher's; ALONE_ROUNDS
 * rounds alternating with the baseline's catcher (BENCH_BASELINE), CPU per message and the ratio per round.
 */
async function catcherNotices() {
  const html = readFileSync('tests/unit/__snapshots__/thread-email.html.snap', 'utf8');
  const built = await nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }).sendMail({
    from: '"Acme Support" <support@acme.test>',
    to: 'agent@acme.test',
    subject: 'Assigned to you: Refund for a double charge [#123]',
    text: 'Tend assigned you this ticket.\n\nRefund for a double charge\nhttp://localhost:3000/w/acme/tickets/123\n',
    html,
    headers: { 'Auto-Submitted': 'auto-generated', 'List-Unsubscribe': '<mailto:unsubscribe+x@tend.localhost>' },
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-catcher-notices-'));
  const file = path.join(dir, 'notice.eml');
  writeFileSync(file, built.message as Buffer);
  const catchers: { label: string; mail: RunningMail; cpu: number[] }[] = [
    {
      label: 'this checkout',
      mail: await startMail({ port: 0, dir: path.join(dir, 'this'), smtpPort: 0, log: () => undefined }),
      cpu: [],
    },
  ];
  if (BASELINE) {
    const base = (await import(path.join(BASELINE, 'supabase/local/mail/index.ts'))) as { startMail: typeof startMail };
    catchers.push({
      label: 'baseline',
      mail: await base.startMail({ port: 0, dir: path.join(dir, 'base'), smtpPort: 0, log: () => undefined }),
      cpu: [],
    });
  }
  const send = (c: (typeof catchers)[number], n: number) =>
    promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      'scripts/catcher-load.ts',
      String(c.mail.smtpPort),
      file,
      String(n),
    ]);
  try {
    for (const c of catchers) await send(c, 100); // warm-up
    for (let r = 0; r < ALONE_ROUNDS; r++)
      for (const c of r % 2 ? [...catchers].reverse() : catchers) {
        const cpu0 = ownCpu();
        await send(c, NOTICE_SENDS);
        c.cpu.push((ownCpu() - cpu0) / NOTICE_SENDS);
      }
    const load = os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    console.log(
      `\nThe catcher alone: a ${((built.message as Buffer).length / 1000).toFixed(1)} kB notice, ${NOTICE_SENDS} a round over two pooled connections, ${ALONE_ROUNDS} rounds; load ${load}`,
    );
    for (const c of catchers)
      console.log(
        `  ${c.label}: catcher CPU per message ${median(c.cpu).toFixed(3)} ms (rounds ${c.cpu.map((x) => x.toFixed(3)).join(', ')})`,
      );
    if (catchers.length === 2) {
      const per = catchers[0].cpu.map((x, i) => x / catchers[1].cpu[i]!);
      console.log(
        `  this ÷ baseline per round: ${median(per).toFixed(2)} (${per.map((x) => x.toFixed(2)).join(', ')})`,
      );
    }
  } finally {
    for (const c of catchers) await c.mail.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
