// Notifications in the browser (issue 29 item 6): the bell's count follows a customer's new request live
// (two contexts), the list opens the ticket and marks it read, "Mark all as read"; the same without
// JavaScript (the bell is a link); the member's settings in /account and the team's defaults
// (admins). Fresh accounts and a workspace of their own.
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from '@playwright/test';
import {
  expect,
  expectNoViolations,
  picture,
  screenshots,
  serviceRest,
  signedInContext,
  test,
  uniqueEmail,
  userId,
} from './fixtures.ts';

async function openRequest(customer: Page, slug: string, subject: string) {
  await customer.goto(`/support/${slug}/new`);
  await customer.getByLabel('Subject').fill(subject);
  await customer.getByLabel('Message').fill(`Details of ${subject}.`);
  await customer.getByRole('button', { name: 'Submit request' }).click();
  await customer.waitForURL(/\/requests\/\d+$/);
  return Number(/requests\/(\d+)$/.exec(customer.url())![1]);
}

const bell = (page: Page) => page.getByRole('link', { name: /^Notifications/ });
// The number the bell shows (aria-hidden: the link's name says it).
const bellCount = (page: Page) => page.locator('.site-header__bell b');

test.describe('notifications', () => {
  test.describe.configure({ mode: 'serial' });
  const tag = randomUUID().slice(0, 8);
  const slug = `notify-${tag}`;
  let admin: { context: BrowserContext; page: Page };
  let agent: { context: BrowserContext; page: Page };
  let customer: { context: BrowserContext; page: Page };
  // A third member whose browser runs no JavaScript.
  let plain: { context: BrowserContext; page: Page };

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    [admin, agent, customer, plain] = await Promise.all([
      signedInContext(browser, uniqueEmail('notify-ada'), { live: true }),
      signedInContext(browser, uniqueEmail('notify-sam'), { live: true }),
      signedInContext(browser, uniqueEmail('notify-casey'), { live: true }),
      signedInContext(browser, uniqueEmail('notify-joe'), { javaScript: false }),
    ]);
    await admin.page.goto('/onboarding');
    await admin.page.getByLabel('Workspace name').fill(`Notify ${tag}`);
    await admin.page.getByLabel('Address').fill(slug);
    await admin.page.getByRole('button', { name: 'Create workspace' }).click();
    await admin.page.waitForURL(`/w/${slug}`);
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    for (const member of [agent, plain])
      await serviceRest('memberships', {
        method: 'POST',
        body: JSON.stringify({ workspace_id: workspace.id, user_id: await userId(member.page), role: 'agent' }),
      });
  });
  test.afterAll(async () => {
    for (const c of [admin, agent, customer, plain]) await c?.context.close();
  });

  test('the bell counts a new request live, the list opens the ticket and marks it read, "Mark all as read"', async () => {
    test.setTimeout(60_000);
    const page = agent.page;
    await page.goto('/account');
    await expect(bell(page)).toBeVisible();
    await expect(bellCount(page)).toHaveCount(0);
    // Wait for the bell's live part to be subscribed (it loads after the page), then a request comes in.
    await page.waitForFunction(() =>
      performance.getEntriesByType('resource').some((e) => e.name.includes('/notifications/unread')),
    );
    const first = await openRequest(customer.page, slug, `Kettle leaks ${tag}`);
    await expect(bellCount(page)).toHaveText('1');
    await expect(bell(page)).toHaveAccessibleName('Notifications, 1 unread');
    const second = await openRequest(customer.page, slug, `Toaster sparks ${tag}`);
    await expect(bellCount(page)).toHaveText('2');

    await bell(page).click();
    await expect(page).toHaveURL('/notifications');
    await expect(page.getByRole('link', { name: new RegExp(`opened a new request #${second}`) })).toBeVisible();
    await expectNoViolations(page);
    await page.getByRole('link', { name: new RegExp(`opened a new request #${first}`) }).click();
    await expect(page).toHaveURL(`/w/${slug}/tickets/${first}`);
    await expect(bellCount(page)).toHaveText('1');
    await page.goto('/notifications');
    await page.getByRole('button', { name: 'Mark all as read' }).click();
    await expect(page.getByText('All marked as read.')).toBeVisible();
    await expect(bellCount(page)).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Mark all as read' })).toHaveCount(0);
  });

  test('without JavaScript the bell is a link to the same list, and "Mark all as read" works', async () => {
    const page = plain.page;
    await openRequest(customer.page, slug, `Fridge hums ${tag}`);
    await page.goto(`/w/${slug}`);
    await expect(bellCount(page)).toHaveText('3');
    await bell(page).click();
    await expect(page).toHaveURL('/notifications');
    await expect(page.getByRole('link', { name: /Fridge hums/ })).toBeVisible();
    await page.getByRole('button', { name: 'Mark all as read' }).click();
    await expect(page).toHaveURL('/notifications?done=read');
    await expect(bellCount(page)).toHaveCount(0);
  });

  test('a member chooses emails for new requests in /account; an admin sets the team’s defaults', async () => {
    test.setTimeout(60_000);
    const page = agent.page;
    await page.goto('/account#notifications');
    const group = page.getByRole('group', { name: 'New requests' });
    await expect(group.getByLabel('Email')).toHaveValue('off');
    await expect(group).toContainText("(The team's default.)");
    await group.getByLabel('Email').selectOption('each');
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await expect(page.getByRole('status')).toHaveText('Saved.');
    await expect(page.getByRole('group', { name: 'New requests' }).getByLabel('Email')).toHaveValue('each');
    await expect(page.getByRole('group', { name: 'New requests' })).toContainText('Your choice');
    await expectNoViolations(page);
    await screenshots(page, 'account-notifications');
    await page.getByRole('button', { name: "Use the team's defaults" }).click();
    await expect(page.getByRole('group', { name: 'New requests' }).getByLabel('Email')).toHaveValue('off');

    // Agents can't open the defaults; the admin can, and members then follow them.
    const refused = await page.goto(`/w/${slug}/settings/notifications`);
    expect(refused?.status()).toBe(403);
    const a = admin.page;
    await a.goto(`/w/${slug}/settings/notifications`);
    await a.getByRole('group', { name: 'Assigned to me' }).getByLabel('Email').selectOption('digest');
    await a.getByRole('button', { name: 'Save defaults' }).click();
    await expect(a.getByRole('status')).toHaveText('Saved.');
    await expectNoViolations(a);
    await screenshots(a, 'notification-defaults');
    await page.goto('/account');
    await expect(page.getByRole('group', { name: 'Assigned to me' }).getByLabel('Email')).toHaveValue('digest');
  });

  test('a note naming a member tells them: "@" offers the names, the list says who; without JavaScript a typed name works', async () => {
    test.setTimeout(60_000);
    const number = await openRequest(customer.page, slug, `Refund approval ${tag}`);
    const page = agent.page;
    await page.goto(`/w/${slug}/tickets/${number}`);
    await page.getByLabel('Internal note').check();
    const box = page.getByLabel('Message');
    await box.pressSequentially('Please approve @notify-a');
    const option = page.getByRole('listbox', { name: 'Members to mention' }).getByRole('option');
    // The admin's name, and not the agent's own.
    await expect(option).toHaveText([/^notify-ada-/]);
    await expect(box).toHaveAttribute('aria-activedescendant', /mentions-0$/);
    await picture(page.locator('.hd-composer'), 'mention-picker');
    await box.press('Enter');
    await expect(box).toHaveValue(/^Please approve @notify-ada-[0-9a-f]{8} $/);
    await expect(option).toHaveCount(0);
    await box.pressSequentially('thanks.');
    await expectNoViolations(page);
    await page.getByRole('button', { name: 'Add internal note' }).click();
    await expect(page.locator('[data-kind="note"]', { hasText: 'Please approve' })).toBeVisible();
    // In a reply the same "@" offers nothing: a customer would read it.
    await page.getByLabel('Reply to customer').check();
    await box.pressSequentially('Hello @notify');
    await expect(option).toHaveCount(0);
    await box.fill('');

    await admin.page.goto('/notifications');
    await expect(admin.page.getByText(`mentioned you on #${number}`)).toBeVisible();

    // Without JavaScript: the member types the name by hand, and the agent hears of it.
    await page.goto('/account');
    const agentName = await page.getByLabel('Display name').inputValue();
    await plain.page.goto(`/w/${slug}/tickets/${number}`);
    await plain.page.getByLabel('Internal note').check();
    await plain.page.getByLabel('Message').fill(`@${agentName} over to you`);
    await plain.page.getByRole('button', { name: 'Add internal note' }).click();
    await expect(plain.page.locator('[data-kind="note"]', { hasText: 'over to you' })).toBeVisible();
    await page.goto('/notifications');
    await expect(page.getByText(`mentioned you on #${number}`)).toBeVisible();
  });
});
