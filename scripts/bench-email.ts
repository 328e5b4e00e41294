// npm run bench:email — a team's reply committed → the customer's email in the mail catcher, on a stack
// of this project (trigger, pg_net, notify with the branded layout, SMTP), for a reply without files and
// one with two 2 MB attachments, interleaved, several rounds; prints p50 and p95 per round and the
// medians of the rounds, with the machine's load. Target (issue 29): p95 ≤ 1 s with the two files.
// Where the time goes: notify logs when each of its steps ended (NOTIFY_TIMINGS), and the bench prints
// the median of each step per kind: the commit (post_message's answer), the queue (pg_net to notify),
// notify reading the thread, reading the files and the rest of the email, building it (MIME, base64),
// SMTP to the catcher, and the catcher storing it until its API counts it.
import os from 'node:os';
import { AGENT, emailStack } from './lib/email-stack.ts';

const ROUNDS = 3;
const PER_ROUND = 8;
const FILE_BYTES = 2 * 1024 * 1024;
const ACME = 'd0000000-0000-4000-8000-000000000a01';

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const ms = (x: number) => `${x.toFixed(0)} ms`;

/** notify's marks per message id (epoch ms): start, loaded, read, built, sent. */
const marks = new Map<string, Record<string, number>>();
const STEPS = ['commit', 'queue', 'load', 'read', 'build', 'smtp', 'catcher'] as const;
type Steps = Record<(typeof STEPS)[number], number>;

async function main() {
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
    /** From post_message's call to the email in the catcher's API; its steps from notify's marks. */
    const reply = async (body: string, files: unknown[] | null, kind?: 'plain' | 'files') => {
      const before = await mails();
      const t0 = performance.now();
      const at0 = Date.now();
      const message = await rpc('post_message', agent, { p_ticket_id: ticketId, p_body: body, p_attachments: files });
      const committed = Date.now();
      // Every 10 ms: the catcher shares the stack's process with storage and the gateway, and a 2 ms poll
      // (each a search over every stored email) slowed the very delivery it waited for.
      while ((await mails()) <= before) await new Promise((r) => setTimeout(r, 10));
      const took = performance.now() - t0;
      const seen = Date.now();
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

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
