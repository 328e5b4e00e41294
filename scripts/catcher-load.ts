// Sends BENCH_MESSAGES copies of a raw message over pooled SMTP connections, as notify does (nodemailer's pool, two
// connections, a message's MAIL, RCPT and DATA pipelined, then its body); for scripts/bench-email.ts's
// catcher figure, run in a process of its own so the catcher's process counts only the catcher.
import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';

const [port, file, count] = process.argv.slice(2);
const raw = readFileSync(file!);
const transport = nodemailer.createTransport({ host: '127.0.0.1', port: Number(port), pool: true, maxConnections: 2 });
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next++ < Number(count))
      await transport.sendMail({
        envelope: { from: 'support@acme.test', to: ['agent@acme.test'] },
        raw,
      });
  }),
);
transport.close();
