// Faster agent work (issue 18 item 7), with JavaScript and without: the sidebar saves each field as it
// changes (one "Save" without JavaScript), note mode is unmistakable, "send and set status" offers
// only what agents may set, a counter near the message limit (a longer text is kept and refused,
// never cut), keyboard shortcuts with a `?` sheet, the inbox as a wide table and a phone's card list,
// the history oldest first. A workspace of its own (fresh accounts: the seeded ones are signed in by
// other specs, one code per email a minute); screenshots of the inbox and the ticket page at 1366 and
// 375 px go with the run's output.
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from '@playwright/test';
import {
  env,
  expect,
  expectNoViolations,
  screenshots,
  serviceRest,
  signedInContext,
  test,
  uniqueEmail,
  userId,
} from './fixtures.ts';

const TOO_LONG = 'Keep the message under 20,000 characters.';

const composer = (page: Page) => page.locator('form.hd-composer');
const message = (page: Page) => composer(page).getByLabel('Message', { exact: true });
const facts = (page: Page) => page.locator('.hd-ticket__facts');

/** Sets a flag a document load would clear: the page was updated in place, not reloaded. */
const markDocument = (page: Page) =>
  page.evaluate(() => ((window as { __sameDocument?: boolean }).__sameDocument = true));
const sameDocument = (page: Page) => page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument);

/** Nothing wider than the screen, and every field of the inbox's first card inside it. */
async function expectPhoneInbox(page: Page) {
  await page.setViewportSize({ width: 375, height: 800 });
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.scrollingElement!.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
  const row = page.getByTestId('inbox-row').first();
  // Every cell with something in it (a ticket without an SLA target has an empty due cell).
  for (const cell of await row.locator('td:not(:empty)').all()) {
    await expect(cell).toBeVisible();
    const box = (await cell.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(375);
  }
  await expect(row.locator('.hd-cell-assignee')).toContainText('Assignee');
  await expect(row.locator('.hd-cell-requester')).toContainText('From');
  await page.setViewportSize({ width: 1366, height: 900 });
}

test.describe('faster agent work', () => {
  test.describe.configure({ mode: 'serial' });
  const tag = randomUUID().slice(0, 8);
  const slug = `flow-${tag}`;
  let admin: { context: BrowserContext; page: Page };
  let plain: { context: BrowserContext; page: Page };
  let ticket = 0;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    [admin, plain] = await Promise.all([
      signedInContext(browser, uniqueEmail('flow-js')),
      signedInContext(browser, uniqueEmail('flow-nojs'), { javaScript: false }),
    ]);
    const page = admin.page;
    await page.goto('/onboarding');
    await page.getByLabel('Workspace name').fill(`Flow ${tag}`);
    await page.getByLabel('Address').fill(slug);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.waitForURL(`/w/${slug}`);
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    await serviceRest('memberships', {
      method: 'POST',
      body: JSON.stringify({ workspace_id: workspace.id, user_id: await userId(plain.page), role: 'agent' }),
    });
    // Older requests to move through, then one with a message, opened through the portal.
    const requester = await userId(page);
    await serviceRest('tickets', {
      method: 'POST',
      body: JSON.stringify(
        Array.from({ length: 6 }, (_, i) => ({
          workspace_id: workspace.id,
          requester_id: requester,
          subject: `Older request ${i} about a very long subject line that goes on ${tag}`,
          last_message_at: new Date(Date.now() - (i + 1) * 3_600_000).toISOString(),
        })),
      ),
    });
    await page.goto(`/support/${slug}/new`);
    await page.getByLabel('Subject').fill(`Kettle will not boil ${tag}`);
    await page.getByLabel('Message').fill('It clicks off after a second.');
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.waitForURL(/\/requests\/\d+$/);
    ticket = Number(/requests\/(\d+)$/.exec(page.url())![1]);
  });
  test.afterAll(async () => {
    for (const c of [admin, plain]) await c?.context.close();
  });

  test('with JavaScript the sidebar saves each field as it changes, in place, without a button', async () => {
    const page = admin.page;
    await page.goto(`/w/${slug}/tickets/${ticket}`);
    await expect(page.getByRole('button', { name: 'Save', exact: true })).toHaveCount(0);
    await markDocument(page);
    await page.getByLabel('Status', { exact: true }).selectOption('pending');
    await expect(facts(page).locator('[data-status]')).toHaveAttribute('data-status', 'pending');
    await expect(page.getByTestId('status-progress')).toHaveText('Saved');
    await page.getByLabel('Priority', { exact: true }).selectOption('urgent');
    await expect(page.getByTestId('priority-progress')).toHaveText('Saved');
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await expect(page.getByTestId('assignee-progress')).toHaveText('Saved');
    await expect(page.getByRole('button', { name: 'Assign to me' })).toHaveCount(0);
    await expect(facts(page)).toContainText('Urgent');
    await expect(facts(page)).toContainText('assigned to');
    expect(await sameDocument(page)).toBe(true);
    // Saved for real, and the history reads oldest first.
    await page.reload();
    await expect(page.getByLabel('Status', { exact: true })).toHaveValue('pending');
    await expect(page.getByLabel('Priority', { exact: true })).toHaveValue('urgent');
    const history = await page.locator('.hd-history li').allTextContents();
    expect(history[0]).toContain('opened the request');
    expect(history.findIndex((h) => h.includes('from new to pending'))).toBeLessThan(
      history.findIndex((h) => h.includes('from normal to urgent')),
    );
  });

  test('without JavaScript one "Save" sends the sidebar, and only changed fields are written', async () => {
    const page = plain.page;
    await page.goto(`/w/${slug}/tickets/${ticket}`);
    await page.getByLabel('Status', { exact: true }).selectOption('open');
    await page.getByLabel('Priority', { exact: true }).selectOption('low');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/tickets/${ticket}$`));
    await expect(facts(page).locator('[data-status]')).toHaveAttribute('data-status', 'open');
    await expect(facts(page)).toContainText('Low');
    const history = page.locator('.hd-history li');
    await expect(history.last()).toContainText('changed priority from urgent to low');
    await expect(history.filter({ hasText: 'from pending to open' })).toHaveCount(1);
    // The assignee was not touched, so not written either.
    await expect(history.filter({ hasText: 'assigned it' })).toHaveCount(1);

    // Someone else changes the priority meanwhile: "Save" writes nothing and says who changed what.
    await admin.page.goto(`/w/${slug}/tickets/${ticket}`);
    await admin.page.getByLabel('Priority', { exact: true }).selectOption('high');
    await expect(admin.page.getByTestId('priority-progress')).toHaveText('Saved');
    await page.getByLabel('Status', { exact: true }).selectOption('pending');
    await page.getByLabel('Priority', { exact: true }).selectOption('normal');
    const response = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    expect((await response).status()).toBe(409);
    await expect(page.getByText(/changed the priority to High a moment ago\. This is how it is now\./)).toBeVisible();
    await expect(page.getByLabel('Priority', { exact: true })).toHaveValue('high');
    await expect(page.getByLabel('Status', { exact: true })).toHaveValue('open');
    await expect(facts(page).locator('[data-status]')).toHaveAttribute('data-status', 'open');
  });

  for (const javaScript of [true, false]) {
    test(`note mode is unmistakable, and the composer offers only statuses agents set (${javaScript ? 'JS' : 'no JS'})`, async () => {
      const page = javaScript ? admin.page : plain.page;
      await page.goto(`/w/${slug}/tickets/${ticket}`);
      const form = composer(page);
      const banner = form.getByText('Internal note — only agents see this');
      await expect(banner).toBeHidden();
      await expect(form.getByRole('button', { name: 'Send', exact: true })).toBeVisible();
      const replyBackground = await form.evaluate((f) => getComputedStyle(f).backgroundColor);
      if (javaScript) await screenshots(page, 'ticket-reply');

      // The ticket is open: keep it, or pending, solved. Never new or closed.
      const offered = await form
        .getByLabel('Send and set status')
        .locator('option')
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
      expect(offered).toEqual(['keep', 'pending', 'solved']);

      await form.getByRole('radio', { name: 'Internal note' }).check();
      await expect(banner).toBeVisible();
      await expect(form.getByRole('button', { name: 'Add internal note' })).toBeVisible();
      await expect(form.getByRole('button', { name: 'Send', exact: true })).toHaveCount(0);
      expect(await form.evaluate((f) => getComputedStyle(f).backgroundColor)).not.toBe(replyBackground);
      await expect(message(page)).toHaveAccessibleDescription(/Internal note — only agents see this/);
      if (javaScript) {
        await screenshots(page, 'ticket-note');
        await expectNoViolations(page, { what: 'ticket page, note mode' });
      }
      const note = `Checked the warranty (${javaScript ? 'js' : 'plain'} ${tag}).`;
      await message(page).fill(note);
      await form.getByRole('button', { name: 'Add internal note' }).click();
      await expect(page.locator('[data-kind="note"]', { hasText: note })).toBeVisible();
    });

    test(`a message near the limit is counted; a longer one is kept and refused, never cut (${javaScript ? 'JS' : 'no JS'})`, async () => {
      const page = javaScript ? admin.page : plain.page;
      await page.goto(`/w/${slug}/tickets/${ticket}`);
      const counter = page.getByTestId('body-counter');
      if (javaScript) {
        await message(page).fill('a'.repeat(17_000));
        await expect(counter).toBeHidden();
        await message(page).fill('a'.repeat(18_500));
        await expect(counter).toHaveText('18,500 of 20,000 characters');
        await expect(counter).toHaveAttribute('aria-live', 'polite');
      }
      const long = `${'b'.repeat(20_400)} end ${tag}`;
      await message(page).fill(long);
      await expect(message(page)).toHaveValue(long);
      if (javaScript) {
        await expect(counter).toContainText(TOO_LONG);
        await expect(message(page)).toHaveAttribute('aria-invalid', 'true');
      }
      const response = page.waitForResponse((r) => r.request().method() === 'POST');
      await composer(page).getByRole('button', { name: 'Send', exact: true }).click();
      expect((await response).status()).toBe(400);
      await expect(composer(page).getByRole('alert').filter({ hasText: TOO_LONG })).toBeVisible();
      await expect(message(page)).toHaveValue(long);
    });
  }

  test('shortcuts move, open, reply, note, claim and search; never while typing or with a modifier', async () => {
    const page = admin.page;
    // The keys act once the page listens: the sheet's button shows then (shortcuts.tsx).
    const keysReady = () => expect(page.getByRole('button', { name: /Keyboard shortcuts/ })).toBeVisible();
    await page.goto(`/w/${slug}?view=all`);
    await keysReady();
    const rows = page.getByTestId('inbox-row');
    const rowLink = (i: number) => rows.nth(i).locator('.hd-cell-subject a');
    await expect(rows).toHaveCount(7);
    await page.keyboard.press('j');
    await expect(rowLink(0)).toBeFocused();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await expect(rowLink(2)).toBeFocused();
    await page.keyboard.press('k');
    await expect(rowLink(1)).toBeFocused();
    await page.keyboard.press('Control+j');
    await expect(rowLink(1)).toBeFocused();
    const second = (await rowLink(1).getAttribute('href'))!;
    await page.keyboard.press('o');
    await expect(page).toHaveURL(second);

    // On the ticket: n and r pick the composer's mode and put the cursor in it; typing there is text.
    await page.keyboard.press('n');
    await expect(composer(page).getByRole('radio', { name: 'Internal note' })).toBeChecked();
    await expect(message(page)).toBeFocused();
    await page.keyboard.type('r and j');
    await expect(message(page)).toHaveValue('r and j');
    await expect(composer(page).getByRole('radio', { name: 'Internal note' })).toBeChecked();
    await message(page).blur();
    await page.keyboard.press('r');
    await expect(composer(page).getByRole('radio', { name: 'Reply to customer' })).toBeChecked();
    await expect(message(page)).toBeFocused();
    await message(page).fill('');
    await message(page).blur();
    // `g i /` typed at speed: the inbox's data is held back until all three are pressed, so `/` comes while the
    // ticket page is still on screen; it waits for the inbox and focuses its search.
    const inboxData = (url: URL) => url.pathname === `/w/${slug}.data`;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(inboxData, async (route) => {
      await released;
      await route.continue();
    });
    const requested = page.waitForRequest((request) => inboxData(new URL(request.url())));
    await page.keyboard.press('g');
    await page.keyboard.press('i');
    await requested;
    await page.keyboard.press('/');
    release();
    await expect(page).toHaveURL(`/w/${slug}`);
    await expect(rows.first()).toBeVisible();
    await page.unroute(inboxData);

    // `/` searches; j typed there is text; Enter on a selected row opens it.
    await expect(page.getByLabel('Search')).toBeFocused();
    await page.keyboard.type('jk');
    await expect(page.getByLabel('Search')).toHaveValue('jk');
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Search').blur();
    await page.keyboard.press('j');
    const first = (await rowLink(0).getAttribute('href'))!;
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(first);

    // c claims the next unassigned request from the inbox.
    await page.goto(`/w/${slug}?view=unassigned`);
    await keysReady();
    await page.keyboard.press('c');
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/tickets/\\d+$`));
    await expect(facts(page)).toContainText('assigned to');
  });

  test('? opens the shortcuts sheet, a dialog that Escape closes', async () => {
    const page = admin.page;
    await page.goto(`/w/${slug}`);
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(sheet).toBeHidden();
    await page.keyboard.press('?');
    await expect(sheet).toBeVisible();
    await expect(sheet).toContainText('Go to the inbox');
    // Keys are for the sheet while it is open.
    await page.keyboard.press('j');
    await expect(page.getByTestId('inbox-row').first().locator('.hd-cell-subject a')).not.toBeFocused();
    await expectNoViolations(page, { what: 'shortcuts sheet' });
    await page.keyboard.press('Escape');
    await expect(sheet).toBeHidden();
    await page.getByRole('button', { name: /Keyboard shortcuts/ }).click();
    await expect(sheet).toBeVisible();
    await sheet.getByRole('button', { name: 'Close' }).click();
    await expect(sheet).toBeHidden();
  });

  test('the inbox: one line a request on a wide screen, a card list on a phone (screenshots)', async () => {
    const page = admin.page;
    await page.goto(`/w/${slug}?view=all`);
    // 1366 px: the page uses the width; a row's subject and date sit on one line.
    const width = await page.locator('.hd-inbox').evaluate((e) => e.getBoundingClientRect().width);
    expect(width).toBeGreaterThan(1200);
    for (const row of await page.getByTestId('inbox-row').all()) {
      const subject = (await row.locator('.hd-cell-subject').boundingBox())!;
      const date = (await row.locator('.hd-cell-date').boundingBox())!;
      expect(Math.abs(subject.y - date.y)).toBeLessThan(4);
      // One line each (a cell of one line is ~41 px high, padding included).
      const lineHeight = await row
        .locator('.hd-cell-subject a')
        .evaluate((a) => [a.getBoundingClientRect().height, Number.parseFloat(getComputedStyle(a).lineHeight)]);
      expect(lineHeight[0]).toBeLessThan(lineHeight[1] * 1.5);
      expect(subject.height).toBeLessThan(50);
      expect(date.height).toBeLessThan(50);
    }
    // The toolbar: "Export CSV" beside "Claim next", at the end of the title's row.
    const exportBox = (await page.getByRole('link', { name: 'Export CSV' }).boundingBox())!;
    const claimBox = (await page.getByRole('button', { name: 'Claim next' }).boundingBox())!;
    expect(Math.abs(exportBox.y - claimBox.y)).toBeLessThan(4);
    expect(claimBox.x - (exportBox.x + exportBox.width)).toBeLessThan(24);
    await expectPhoneInbox(page);
    await expectNoViolations(page, { what: 'inbox' });
    await page.setViewportSize({ width: 375, height: 800 });
    await expectNoViolations(page, { what: 'inbox on a phone' });
    await screenshots(page, 'inbox');
  });

  test('the inbox on a phone without JavaScript: cards, no sideways scrolling', async () => {
    await plain.page.goto(`/w/${slug}?view=all`);
    await expectPhoneInbox(plain.page);
  });

  test("the customer's thread leaves space between its header and the first message", async ({ browser }) => {
    // The requester's page without JavaScript (no live bar in between).
    const context = await browser.newContext({
      baseURL: env.baseURL,
      javaScriptEnabled: false,
      storageState: await admin.context.storageState(),
      extraHTTPHeaders: { 'X-Forwarded-For': '10.253.3.1' },
    });
    try {
      const page = await context.newPage();
      await page.goto(`/support/${slug}/requests/${ticket}`);
      const header = (await page.locator('.hd-portal-ticket > .card').first().boundingBox())!;
      const first = (await page.locator('.hd-message').first().boundingBox())!;
      expect(first.y - (header.y + header.height)).toBeGreaterThanOrEqual(16);
      await screenshots(page, 'customer-thread');
    } finally {
      await context.close();
    }
    await admin.page.goto(`/support/${slug}/requests/${ticket}`);
    await expectNoViolations(admin.page, { what: 'customer thread' });
  });
});
