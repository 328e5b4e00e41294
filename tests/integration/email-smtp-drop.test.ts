// The SMTP catcher dropping its connections while notify sends (issue 25 item 1). The catcher runs
// inside the stack's process, so "killing" it means what its clients see: every open SMTP
// connection cut mid-session and the port refusing for a second. A TCP relay in front of it does
// exactly that; notify is pointed at the relay. Every reply posted is still mailed, once marked sent.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { PEOPLE, openTicket, startDbStack, type DbStack } from '../support/db.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

let db: DbStack;
let envDir: string;
const sockets = new Set<net.Socket>();
let relay: net.Server;
let relayPort = 0;
let catcherPort = 0;

function listen() {
  relay = net.createServer((client) => {
    const upstream = net.connect(catcherPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  return new Promise<void>((r) => relay.listen(relayPort, '127.0.0.1', r));
}

/** The catcher "dies": every connection reset, the port closed for `ms`, then serving again; how many were cut. */
async function dropFor(ms: number) {
  const closed = new Promise((r) => relay.close(r));
  const cut = sockets.size;
  for (const s of sockets) s.resetAndDestroy();
  await closed;
  await new Promise((r) => setTimeout(r, ms));
  await listen();
  return cut;
}

beforeAll(async () => {
  await listen();
  relayPort = (relay.address() as net.AddressInfo).port;
  envDir = mkdtempSync(path.join(os.tmpdir(), 'tend-smtp-drop-'));
  const envFile = path.join(envDir, '.env');
  writeFileSync(envFile, `APP_URL=http://localhost:3999\nSMTP_HOST=127.0.0.1\nSMTP_PORT=${relayPort}\n`);
  db = await startDbStack({ functionsEnvFile: envFile });
  catcherPort = db.stack.smtpPort;
}, 120_000);
afterAll(async () => {
  for (const s of sockets) s.destroy();
  relay?.close();
  await db?.teardown();
  rmSync(envDir, { recursive: true, force: true });
});

describe('SMTP connections dropped while notify sends', () => {
  it('mails every reply all the same, each delivery marked sent', async () => {
    const ticket = await openTicket(db, 'acmeCustomer', 'Dropped mail');
    const agent = await db.as('acmeAgent');
    const replies: string[] = [];
    const post = async (n: number) => {
      const { data, error } = await agent.rpc('post_message', {
        p_ticket_id: ticket.id,
        p_body: `Reply number ${n}`,
        p_kind: 'reply',
      });
      if (error) throw new Error(`post_message: ${error.message}`);
      replies.push((data as { id: string }).id);
    };
    for (let n = 1; n <= 4; n++) await post(n);
    // notify keeps its SMTP connections open (a pooled transport): wait until it has one, then cut it.
    await waitFor('notify connected to the catcher', async () => sockets.size > 0);
    expect(await dropFor(1000)).toBeGreaterThan(0);
    for (let n = 5; n <= 8; n++) await post(n);
    await dropFor(1000);

    const sentTo = (id: string) =>
      db.sql(`select status from email_deliveries where message_id = $1`, [`<m.${id}@tend.localhost>`]);
    await waitFor(
      'every reply mailed',
      async () => {
        for (const id of replies) if ((await sentTo(id)).rows[0]?.status !== 'sent') return false;
        return true;
      },
      30_000,
    );
    const mails = await messagesTo(db.stack.mailUrl, PEOPLE.acmeCustomer.email, { notifications: true });
    const texts = await Promise.all(
      mails
        .filter((m) => m.Subject.includes('Dropped mail'))
        .map(async (m) => (await (await fetch(`${db.stack.mailUrl}/api/v1/message/${m.ID}`)).json()).Text as string),
    );
    for (let n = 1; n <= 8; n++)
      expect(
        texts.some((t) => new RegExp(`Reply number ${n}\\b`).test(t)),
        `reply ${n}`,
      ).toBe(true);
  }, 90_000);
});
