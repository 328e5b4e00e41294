// Followers end to end (issue 27 item 7; docs/product.md#followers, docs/decisions/064-followers.md): an
// inbound email that copies a colleague makes them a follower; an agent adds a follower on the ticket
// page and removes one; the agent's reply reaches the follower in the mail catcher with an address of
// their own; the follower's answer by email threads into the ticket as theirs; through the email's
// link the follower reads the thread in the portal (never a note) and replies there. Without
// JavaScript the same forms work and a refusal keeps the address. Also issue 29's leftover: "New
// conversation" with JavaScript off, answered by the customer by email.
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from '@playwright/test';
import {
  expect,
  expectNoViolations,
  inboundEmail,
  mailWith,
  newContext,
  newWorkspace,
  screenshots,
  test,
  uniqueEmail,
} from './fixtures.ts';

/** An email to `to` from `from`, as Postmark posts it. */
const mailFrom = (from: string, to: string, extra: Record<string, unknown>) =>
  inboundEmail({
    From: from,
    FromFull: { Email: from, Name: '', MailboxHash: '' },
    To: to,
    ToFull: [{ Email: to, Name: '', MailboxHash: '' }],
    ...extra,
  });

test.describe('followers', () => {
  test.describe.configure({ mode: 'serial' });
  const tag = randomUUID().slice(0, 8);
  const customer = uniqueEmail('fol-customer');
  const colleague = uniqueEmail('fol-colleague');
  const friend = uniqueEmail('fol-friend');
  let agent: { context: BrowserContext; page: Page };
  let slug = '';
  let number = 0;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    agent = await newContext(browser);
    slug = await newWorkspace(agent.page, { label: 'fol' });
  });
  test.afterAll(async () => {
    await agent?.context.close();
  });

  test('an inbound email that copies a colleague makes them a follower', async () => {
    const res = await mailFrom(customer, `${slug}@tend.localhost`, {
      Subject: `Broken lamp ${tag}`,
      TextBody: 'The lamp flickers.',
      CcFull: [{ Email: colleague, Name: 'Colleague', MailboxHash: '' }],
    });
    expect(res.status).toBe(200);
    number = (await res.json()).number;
    await agent.page.goto(`/w/${slug}/tickets/${number}`);
    await expect(agent.page.getByTestId('followers')).toContainText(colleague);
  });

  test('an agent adds a follower and removes one from the sidebar; the reply reaches the follower, who answers by email', async () => {
    test.setTimeout(120_000);
    const page = agent.page;
    await page.goto(`/w/${slug}/tickets/${number}`);
    // The requester can't follow: the followers page says so, the address kept.
    await page.locator('#followers').getByLabel('Add a follower (email address)').fill(customer);
    await page.locator('#followers').getByRole('button', { name: 'Add follower' }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/tickets/${number}/followers$`));
    await expect(page.getByText('That is the requester: they get every reply already.')).toBeVisible();
    await expect(page.getByLabel('Add a follower (email address)')).toHaveValue(customer);
    await screenshots(page, 'followers-page-refused');
    await expectNoViolations(page);
    await page.getByLabel('Add a follower (email address)').fill(friend);
    await page.getByRole('button', { name: 'Add follower' }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/tickets/${number}#followers$`));
    await expect(page.getByTestId('followers')).toContainText(friend);
    await page.getByRole('button', { name: `Remove follower ${colleague}` }).click();
    await expect(page.getByTestId('followers')).not.toContainText(colleague);
    await expect(page.getByTestId('followers')).toContainText(friend);
    await screenshots(page, 'ticket-followers', async () => {
      await page.locator('#followers').scrollIntoViewIfNeeded();
    });
    await expectNoViolations(page);

    // A note and a reply: the follower gets the reply only, with an address of their own.
    const composer = page.locator('form.hd-composer');
    await composer.getByRole('radio', { name: 'Internal note' }).check();
    await composer.getByLabel('Message', { exact: true }).fill(`Internal ${tag}: supplier is slow`);
    await composer.getByRole('button', { name: 'Add internal note' }).click();
    await expect(page.locator('.hd-message--note', { hasText: `Internal ${tag}` })).toBeVisible();
    await composer.getByRole('radio', { name: 'Reply to customer' }).check();
    await composer.getByLabel('Message', { exact: true }).fill(`A new lamp ships today ${tag}.`);
    await composer.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.locator('.hd-message[data-kind="reply"]', { hasText: 'A new lamp ships today' })).toBeVisible();

    const mail = await mailWith(friend, `A new lamp ships today ${tag}.`);
    expect(mail.Text).toContain('replied to a request you follow');
    expect(mail.Text).not.toContain(`Internal ${tag}`);
    const toCustomer = await mailWith(customer, `A new lamp ships today ${tag}.`);
    expect(mail.ReplyTo[0].Address).not.toBe(toCustomer.ReplyTo[0].Address);

    const res = await mailFrom(friend, mail.ReplyTo[0].Address, {
      Subject: `Re: ${mail.Subject}`,
      TextBody: `Thanks from the friend ${tag}`,
    });
    expect(res.status).toBe(200);
    expect((await res.json()).number).toBe(number);
    await page.reload();
    const answer = page.locator('.hd-message[data-kind="reply"]', { hasText: `Thanks from the friend ${tag}` });
    await expect(answer).toBeVisible();
    // Theirs (the name their account got from the address), not the requester's.
    await expect(answer).toContainText(friend.split('@')[0]);
    await expect(answer).not.toContainText(customer.split('@')[0]);
  });

  test('the follower reads the thread in the portal through the email’s link, never a note, and replies there', async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const mail = await mailWith(friend, `A new lamp ships today ${tag}.`);
    const link = mail.Text.match(/https?:\/\/\S+/g)!.find((u) => new URL(u).pathname === '/auth/confirm')!;
    const portal = await newContext(browser);
    await portal.page.goto(link);
    await portal.page.getByRole('button', { name: 'Confirm sign-in' }).click();
    const page = portal.page;
    await expect(page).toHaveURL(new RegExp(`/support/${slug}/requests/${number}$`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Broken lamp ${tag}`);
    await expect(page.locator('.hd-message', { hasText: 'The lamp flickers.' })).toBeVisible();
    await expect(page.locator('.hd-message', { hasText: 'A new lamp ships today' })).toBeVisible();
    await expect(page.getByText(`Internal ${tag}`)).toHaveCount(0);
    // Marking it solved is the requester's.
    await expect(page.getByRole('button', { name: 'Mark as solved' })).toHaveCount(0);
    await page.getByLabel('Your reply').fill(`Portal reply from the friend ${tag}`);
    await page.getByRole('button', { name: 'Send reply' }).click();
    await expect(page.locator('.hd-message', { hasText: `Portal reply from the friend ${tag}` })).toBeVisible();
    await screenshots(page, 'follower-portal');
    await expectNoViolations(page);
    // The portal's list says which requests are followed.
    await page.goto(`/support/${slug}`);
    await expect(page.getByTestId('my-requests')).toContainText(`Broken lamp ${tag}`);
    await expect(page.getByTestId('my-requests')).toContainText('Following');
    await portal.context.close();

    await agent.page.goto(`/w/${slug}/tickets/${number}`);
    await expect(agent.page.locator('.hd-message', { hasText: `Portal reply from the friend ${tag}` })).toBeVisible();
  });
});

test.describe('without JavaScript', () => {
  test('followers are added and removed with plain forms; a refusal keeps the address at its field', async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const nojs = await newContext(browser, { javaScript: false });
    const page = nojs.page;
    const slug = await newWorkspace(page, { label: 'folnojs' });
    const customer = uniqueEmail('nojs-customer');
    const res = await mailFrom(customer, `${slug}@tend.localhost`, { Subject: 'No script', TextBody: 'Hi' });
    const { number } = await res.json();
    await page.goto(`/w/${slug}/tickets/${number}`);
    const card = page.locator('#followers');
    // The requester: refused on the followers page, the address kept.
    await card.getByLabel('Add a follower (email address)').fill(customer);
    await card.getByRole('button', { name: 'Add follower' }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/tickets/${number}/followers$`));
    const field = page.getByLabel('Add a follower (email address)');
    await expect(field).toHaveValue(customer);
    await expect(page.getByText('That is the requester: they get every reply already.')).toBeVisible();
    // (axe runs in the page: with JavaScript, in the test above; the markup is the same without.)
    const other = uniqueEmail('nojs-follower');
    await field.fill(other);
    await page.getByRole('button', { name: 'Add follower' }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/tickets/${number}#followers$`));
    await expect(page.getByTestId('followers')).toContainText(other);
    await page.getByRole('button', { name: `Remove follower ${other}` }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/tickets/${number}#followers$`));
    await expect(page.getByTestId('followers')).toHaveCount(0);
    await nojs.context.close();
  });

  test('“New conversation”: the customer gets the email, replies, and it threads', async ({ browser }) => {
    test.setTimeout(90_000);
    const nojs = await newContext(browser, { javaScript: false });
    const page = nojs.page;
    const slug = await newWorkspace(page, { label: 'newconv' });
    const casey = uniqueEmail('nojs-casey');
    const tag = randomUUID().slice(0, 8);
    await page.goto(`/w/${slug}/tickets/new`);
    await page.getByLabel('Customer’s email').fill(casey);
    await page.getByLabel('Subject').fill(`Order ${tag}`);
    await page.getByLabel('Message', { exact: true }).fill(`Your order ${tag} is ready.`);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Order ${tag}`);
    const mail = await mailWith(casey, `Your order ${tag} is ready.`);
    const res = await mailFrom(casey, mail.ReplyTo[0].Address, {
      Subject: `Re: ${mail.Subject}`,
      TextBody: `Picking it up, ${tag}.`,
    });
    expect(res.status).toBe(200);
    await page.reload();
    await expect(page.locator('.hd-message[data-kind="reply"]', { hasText: `Picking it up, ${tag}.` })).toBeVisible();
    await expect(page.locator('.hd-ticket__facts')).toContainText('Open');
    await nojs.context.close();
  });
});
