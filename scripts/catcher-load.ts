// Sends BENCH_MESSAGES copies of a raw message over pooled SMTP connections, as notify does (nodemailer's pool, two
// connections; the app's nodemailer 10 pipelines a message's MAIL, RCPT and DATA, notify's 6.10.1 sends each after the
// last reply: docs/decisions/119-notify-pipelines-smtp.md); for scripts/bench-email.ts's
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
