// Email both ways, end to end (issue 17): an agent's reply reaches the customer by email (read from
// the mail catcher's API) with the reply and a link; following it signed out leads through sign-in
// to that thread, and the one-click link signs in and lands there directly, once, however many emails
// came after it (docs/decisions/035-email-sign-in-links.md). The customer's answer,
// posted to inbound-email as the provider would, appears in the agent's open ticket. Fresh accounts
// and a workspace of their own (the seeded ones are signed in by other specs).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from '@playwright/test';
import { messagesTo } from '../../scripts/lib/mail.ts';
import {
  codeFor,
  enterCode,
  env,
  expect,
  expectNoViolations,
  mailCount,
  newContext,
  requestCode,
  screenshots,
  serviceRest,
  test,
  uniqueEmail,
} from './fixtures.ts';

/** Signs in on the page it is on (a /login URL), with the code from the inbox. */
async function signInHere(page: Page, email: string) {
  const before = await mailCount(email);
  await requestCode(page, email);
  await enterCode(page, await codeFor(email, before + 1));
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

interface Mail {
  Subject: string;
  Text: string;
  ReplyTo: { Address: string }[];
}

/** The newest notification to `email` whose text contains `text`. */
async function notificationWith(email: string, text: string): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(
      async () => {
        for (const { ID } of await messagesTo(env.mailUrl, email, { notifications: true })) {
          const mail = await (await fetch(`${env.mailUrl}/api/v1/message/${ID}`)).json();
          if (mail.Text.includes(text)) return (found = mail) && true;
        }
        return false;
      },
      { timeout: 10_000, message: `an email to ${email} with "${text}"` },
    )
    .toBe(true);
  return found!;
}

/** The one-click sign-in link in a notification. */
const oneClickLink = (mail: Mail) =>
  mail.Text.match(/https?:\/\/\S+/g)!.find((u) => new URL(u).pathname === '/auth/confirm')!;

/** Follows a one-click link and presses its button, as the customer does. */
async function confirm(page: Page, link: string) {
  await page.goto(link);
  await page.getByRole('button', { name: 'Confirm sign-in' }).click();
  await page.waitForLoadState();
}

/** Posts an email from the customer to inbound-email as Postmark would (basic auth in the webhook URL). */
const inbound = (mail: Record<string, unknown>) =>
  fetch(`${process.env.E2E_API_URL}/functions/v1/inbound-email`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Basic ${btoa(`postmark:${process.env.E2E_INBOUND_EMAIL_SECRET}`)}`,
    },
    body: JSON.stringify({
      MessageID: randomUUID(),
      From: customerEmail,
      FromFull: { Email: customerEmail, Name: 'Casey', MailboxHash: '' },
      HtmlBody: '',
      Headers: [],
      Attachments: [],
      ...mail,
    }),
  });

const customerEmail = uniqueEmail('mail-casey');

test.describe('email', () => {
  test.describe.configure({ mode: 'serial' });
  const tag = randomUUID().slice(0, 8);
  const slug = `mail-${tag}`;
  const subject = `Kettle leaks ${tag}`;
  let agent: { context: BrowserContext; page: Page };
  let number = 0;
  let replyTo = '';

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    agent = await newContext(browser, { live: true });
    await agent.page.goto('/login');
    await signInHere(agent.page, uniqueEmail('mail-ada'));
    await agent.page.goto('/onboarding');
    await agent.page.getByLabel('Workspace name').fill(`Mail ${tag}`);
    await agent.page.getByLabel('Address').fill(slug);
    await agent.page.getByRole('button', { name: 'Create workspace' }).click();
    await agent.page.waitForURL(`/w/${slug}`);
    // The customer writes to the workspace's address: a new customer and a new request, by email.
    const res = await inbound({
      To: `${slug}@tend.localhost`,
      ToFull: [{ Email: `${slug}@tend.localhost`, Name: '', MailboxHash: '' }],
      Subject: subject,
      TextBody: 'Water everywhere.',
    });
    expect(res.status).toBe(200);
    number = (await res.json()).number;
  });
  test.afterAll(async () => {
    await agent?.context.close();
  });

  /** The agent replies on the ticket's page; the email the customer gets for it. */
  async function agentReplies(reply: string, ticket = number, to = customerEmail): Promise<Mail> {
    await agent.page.goto(`/w/${slug}/tickets/${ticket}`);
    const form = agent.page.locator('form.hd-composer');
    await form.getByRole('radio', { name: 'Reply to customer' }).check();
    await form.getByLabel('Message', { exact: true }).fill(reply);
    await form.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(agent.page.locator('[data-kind="reply"]', { hasText: reply })).toBeVisible();
    return notificationWith(to, reply);
  }

  test("an agent's reply is emailed to the customer; its link leads signed out through sign-in to the thread", async ({
    browser,
  }) => {
    const reply = `A new seal is in the post (${tag}).`;
    const mail = await agentReplies(reply);
    replyTo = mail.ReplyTo[0].Address;
    const threadPath = `/support/${slug}/requests/${number}`;
    const threadLink = mail.Text.match(/https?:\/\/\S+/g)!.find((u) => new URL(u).pathname === threadPath);
    expect(threadLink).toBe(`${env.baseURL}${threadPath}`);

    // Signed out, the thread's link asks for sign-in first, keeping where it leads.
    const reader = await newContext(browser, { live: true });
    await reader.page.goto(threadLink!);
    await expect(reader.page).toHaveURL(/\/login/);
    expect(new URL(reader.page.url()).searchParams.get('redirectTo')).toBe(threadPath);
    // The email's one-click link signs in and lands on the thread.
    const link = oneClickLink(mail);
    expect(new URL(link).searchParams.get('next')).toBe(threadPath);
    await reader.page.goto(link);
    await reader.page.getByRole('button', { name: 'Confirm sign-in' }).click();
    await expect(reader.page).toHaveURL(`${env.baseURL}${threadPath}`);
    await expect(reader.page.getByRole('heading', { level: 1 })).toHaveText(subject);
    await expect(reader.page.getByText(reply)).toBeVisible();
    await expect(reader.page.getByRole('link', { name: 'Signed in as Casey' })).toBeVisible();
    await reader.context.close();
  });

  test("each email's one-click link works once, for its stated life, whatever was sent after it; a code asked for meanwhile is sent", async ({
    browser,
  }) => {
    test.setTimeout(60_000);
    const threadPath = `/support/${slug}/requests/${number}`;
    const first = await agentReplies(`First of two (${tag}).`);
    const second = await agentReplies(`Second of two (${tag}).`);
    expect(first.Text).toContain('The button signs you in, once, within 24 hours.');
    expect(oneClickLink(first)).not.toBe(oneClickLink(second));

    // Within a minute of an email (someone else's request here: this customer followed a link moments
    // ago, which counts as a sign-in) its customer asks for a code: one is sent, and the page says so.
    const other = uniqueEmail('mail-olive');
    const opened = await inbound({
      From: other,
      FromFull: { Email: other, Name: 'Olive', MailboxHash: '' },
      To: `${slug}@tend.localhost`,
      ToFull: [{ Email: `${slug}@tend.localhost`, Name: '', MailboxHash: '' }],
      Subject: `Lid stuck ${tag}`,
      TextBody: 'It will not open.',
    });
    await agentReplies(`Twist it the other way (${tag}).`, (await opened.json()).number, other);
    const asker = await newContext(browser);
    await asker.page.goto('/login');
    await requestCode(asker.page, other);
    await expect(asker.page.getByRole('main')).toContainText(`We sent a 6-digit code to ${other}.`);
    await expect.poll(() => mailCount(other)).toBe(1);
    await asker.context.close();

    // The older email's link still works (a newer email and a code came after it).
    const reader = await newContext(browser);
    await confirm(reader.page, oneClickLink(first));
    await expect(reader.page).toHaveURL(`${env.baseURL}${threadPath}`);
    await expect(reader.page.getByText(`Second of two (${tag}).`)).toBeVisible();
    await reader.context.close();

    // Used once, it is spent: another browser following it again is told so, and offered a code.
    const replay = await newContext(browser);
    await confirm(replay.page, oneClickLink(first));
    await expect(replay.page.getByRole('alert')).toHaveText(
      'This sign-in link was already used. Sign in with a code instead.',
    );
    await expect(replay.page.getByRole('link', { name: 'Sign in with a new code instead' })).toHaveAttribute(
      'href',
      `/login?redirectTo=${encodeURIComponent(threadPath)}`,
    );
    await expectNoViolations(replay.page);
    await screenshots(replay.page, 'confirm-link-used');

    // A link whose `next` was changed leads to its own thread only.
    const changed = new URL(oneClickLink(second));
    changed.searchParams.set('next', '/support/acme/requests/1');
    await confirm(replay.page, changed.href);
    await expect(replay.page).toHaveURL(`${env.baseURL}${threadPath}`);

    // A made-up token, and an expired link, sign nobody in.
    const stranger = await newContext(browser);
    const forged = new URL(oneClickLink(second));
    forged.searchParams.set('link', randomBytes(32).toString('base64url'));
    await confirm(stranger.page, forged.href);
    await expect(stranger.page.getByRole('alert')).toHaveText(
      "This sign-in link isn't valid. Sign in with a code instead.",
    );
    const third = await agentReplies(`Third, read too late (${tag}).`);
    const token = new URL(oneClickLink(third)).searchParams.get('link')!;
    await serviceRest(`email_sign_in_links?token_hash=eq.${createHash('sha256').update(token).digest('hex')}`, {
      method: 'PATCH',
      body: JSON.stringify({ expires_at: new Date(Date.now() - 1000).toISOString() }),
    });
    await confirm(stranger.page, oneClickLink(third));
    await expect(stranger.page.getByRole('alert')).toHaveText(
      'This sign-in link has expired (it worked for 24 hours). Sign in with a code instead.',
    );
    await stranger.page.goto(threadPath);
    await expect(stranger.page).toHaveURL(/\/login\?redirectTo=/);
    await stranger.context.close();
    await replay.context.close();
  });

  test("the customer's emailed answer appears in the agent's open ticket", async () => {
    await agent.page.goto(`/w/${slug}/tickets/${number}`);
    await expect(agent.page.getByTestId('live-status')).toHaveText('Live');
    const answer = `Thanks, it arrived (${tag}).`;
    const res = await inbound({
      To: replyTo,
      ToFull: [{ Email: replyTo, Name: '', MailboxHash: '' }],
      Subject: `Re: ${subject}`,
      TextBody: `${answer}\n\nOn Wed, someone wrote:\n> A new seal is in the post.`,
    });
    expect(res.status).toBe(200);
    // Live: the open page shows it without a reload (realtime), quoted history gone.
    const item = agent.page.locator('[data-kind="reply"]', { hasText: answer });
    await expect(item).toBeVisible();
    await expect(item).not.toContainText('someone wrote');
  });
});
