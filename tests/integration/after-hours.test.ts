// The acknowledgement outside business hours (issue 28 item 7; supabase/schemas/93_after_hours.sql): a
// request that arrives while the team is closed gets the canned reply the admins picked, filled in, and
// when the team opens next; none while open, with no reply picked or for a conversation a member started;
// who may pick it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { waitFor } from '../../scripts/lib/wait.ts';
import { ACME, GLOBEX, PEOPLE, openTicket, startDbStack, type DbStack, type Person } from '../support/db.ts';

let db: DbStack;
let envDir: string;
let reply: string;

beforeAll(async () => {
  envDir = mkdtempSync(path.join(os.tmpdir(), 'tend-after-hours-env-'));
  const envFile = path.join(envDir, '.env');
  writeFileSync(envFile, 'APP_URL=http://localhost:3999\nINBOUND_EMAIL_DOMAIN=tend.localhost\n');
  db = await startDbStack({ functionsEnvFile: envFile });
  const { rows } = await db.sql(
    `insert into canned_replies (workspace_id, title, body)
     values ($1, 'After hours', 'Hi {{requester.name}}, thanks for writing to {{workspace.name}} about #{{ticket.number}}.')
     returning id`,
    [ACME],
  );
  reply = rows[0].id;
}, 120_000);
afterAll(async () => {
  await db?.teardown();
  rmSync(envDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await db.sql('delete from after_hours_replies; delete from business_hours');
});

const pick = async (who: Person, workspace: string, cannedReplyId?: string) =>
  (await db.as(who)).rpc('save_after_hours_reply', { p_workspace_id: workspace, p_canned_reply_id: cannedReplyId });

/** Open only on the weekday three days from today (UTC, Acme's zone), 09:00–10:00: closed now. */
async function closedNow() {
  const weekday = ((new Date().getUTCDay() + 6) % 7) + 1; // ISO, 1 = Monday
  const open = ((weekday + 2) % 7) + 1;
  const { error } = await (await db.as('acmeAdmin')).rpc('save_business_hours', {
    p_workspace_id: ACME,
    p_periods: [{ weekday: open, opens: '09:00', closes: '10:00' }],
  });
  expect(error).toBeNull();
}

/** Every call the database queued to the functions has been answered. */
const settled = () =>
  waitFor('notify to finish', async () => {
    const { rows } = await db.sql('select count(*)::int as n from net.http_request_queue');
    return rows[0].n === 0;
  });

const acknowledgements = async (number: number) =>
  (await messagesTo(db.stack.mailUrl, PEOPLE.acmeCustomer.email, { notifications: true })).filter(
    (m) => m.Subject === `Re: After hours ${number} [#${number}]`,
  );

/** A new request by the customer, its subject naming its own number (the next one). */
async function request() {
  const { rows } = await db.sql('select coalesce(max(number), 0) + 1 as n from tickets where workspace_id = $1', [
    ACME,
  ]);
  return openTicket(db, 'acmeCustomer', `After hours ${rows[0].n}`);
}

describe('outside business hours', () => {
  it('acknowledges a request with the canned reply, filled in, and when the team opens next', async () => {
    await closedNow();
    expect((await pick('acmeAdmin', ACME, reply)).error).toBeNull();
    const t = await request();
    const [summary] = await waitFor('the acknowledgement', async () => {
      const found = await acknowledgements(t.number);
      return found.length ? found : null;
    });
    const mail = await (await fetch(`${db.stack.mailUrl}/api/v1/message/${summary.ID}`)).json();
    const { rows } = await db.sql(
      'select public.next_opening($1, t.created_at) as opens, w.name from tickets t join workspaces w on w.id = t.workspace_id where t.id = $2',
      [ACME, t.id],
    );
    const opens = new Intl.DateTimeFormat('en-GB', {
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'UTC',
    }).format(rows[0].opens);
    expect(rows[0].opens.getTime()).toBeGreaterThan(Date.now());
    expect(mail.Text).toContain(`thanks for writing to ${rows[0].name} about #${t.number}.`);
    expect(mail.Text).not.toContain('{{');
    expect(mail.Text).toContain(`We're closed right now: the team will answer from ${opens} (UTC time).`);
    expect(mail.MessageID).toBe(`a.${t.id}@tend.localhost`);
  });

  it('acknowledges nothing while the team is open, nor with no reply picked', async () => {
    // No periods at all: open around the clock.
    expect((await pick('acmeAdmin', ACME, reply)).error).toBeNull();
    const open = await request();
    await closedNow();
    expect((await pick('acmeAdmin', ACME)).error).toBeNull();
    const unpicked = await request();
    await settled();
    expect(await acknowledgements(open.number)).toEqual([]);
    expect(await acknowledgements(unpicked.number)).toEqual([]);
  });

  it('acknowledges nothing for a conversation a member started with the customer', async () => {
    await closedNow();
    expect((await pick('acmeAdmin', ACME, reply)).error).toBeNull();
    const { rows } = await db.sql('select coalesce(max(number), 0) + 1 as n from tickets where workspace_id = $1', [
      ACME,
    ]);
    const { data, error } = await (await db.as('acmeAgent')).rpc('start_conversation', {
      p_workspace_id: ACME,
      p_requester_email: PEOPLE.acmeCustomer.email,
      p_subject: `After hours ${rows[0].n}`,
      p_body: 'We saw your order go out twice; the second is refunded.',
    });
    expect(error).toBeNull();
    expect(data).toEqual([{ id: expect.any(String), number: rows[0].n }]);
    // The agent's message reaches the customer; no acknowledgement goes with it.
    await waitFor('the agent’s message', async () =>
      (await messagesTo(db.stack.mailUrl, PEOPLE.acmeCustomer.email, { notifications: true })).some(
        (m) => m.Subject === `After hours ${rows[0].n} [#${rows[0].n}]`,
      ),
    );
    await settled();
    expect(await acknowledgements(rows[0].n)).toEqual([]);
  });

  it('admins pick one of their workspace’s replies; agents and customers can’t; removing the reply drops it', async () => {
    for (const who of ['acmeAgent', 'acmeCustomer'] as const)
      expect((await pick(who, ACME, reply)).error?.message, who).toBe('forbidden');
    expect((await pick('globexAdmin', GLOBEX, reply)).error?.message).toBe('not_found');
    expect((await pick('acmeAdmin', ACME, reply)).error).toBeNull();
    const read = async (who: Person) =>
      (await (await db.as(who)).from('after_hours_replies').select('canned_reply_id')).data;
    expect(await read('acmeAgent')).toEqual([{ canned_reply_id: reply }]);
    expect(await read('acmeCustomer')).toEqual([]);
    expect(await read('globexAdmin')).toEqual([]);
    const { rows } = await db.sql(
      `insert into canned_replies (workspace_id, title, body) values ($1, 'Short-lived', 'Bye') returning id`,
      [ACME],
    );
    expect((await pick('acmeAdmin', ACME, rows[0].id)).error).toBeNull();
    await (await db.as('acmeAdmin')).from('canned_replies').delete().eq('id', rows[0].id);
    expect(await read('acmeAdmin')).toEqual([]);
  });
});
