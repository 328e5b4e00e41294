// The helpdesk end to end: a customer opens a request at Acme, an agent works it (claim, note,
// reply with "pending"), the customer sees the reply but never the note and reopens it by
// replying, the agent is stopped by the traffic cop and then solves it. Agents of another
// workspace get "not found". Each seeded account signs in once per file (one code per 60 s per
// email) and its context is reused; the run without JavaScript uses other accounts.
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Locator, Page } from '@playwright/test';
import {
  codeFor,
  enterCode,
  env,
  expect,
  expectNoViolations,
  requestCode,
  signedInContext,
  test,
  uniqueEmail,
} from './fixtures.ts';

const NOT_FOUND = "We couldn't find that.";
const TICKET_CHANGED = 'Someone replied while you were writing. Read the new message; your draft is kept.';

const composer = (page: Page) => page.locator('form.hd-composer');
const ticketStatus = (page: Page) => page.locator('.hd-ticket__facts [data-status]');

async function send(
  page: Page,
  body: string,
  opts: { kind?: 'reply' | 'note'; status?: 'keep' | 'pending' | 'solved' } = {},
) {
  const form = composer(page);
  await form.getByRole('radio', { name: opts.kind === 'note' ? 'Internal note' : 'Reply to customer' }).check();
  await form.getByLabel('Message', { exact: true }).fill(body);
  await form.getByLabel('Send and set status').selectOption(opts.status ?? 'keep');
  // Note mode names its button so.
  await form.getByRole('button', { name: opts.kind === 'note' ? 'Add internal note' : 'Send', exact: true }).click();
}

async function openRequest(customer: Page, subject: string, body: string) {
  await customer.goto('/support/acme');
  await expect(customer.getByRole('heading', { level: 1 })).toHaveText('Acme Support');
  await customer.getByRole('link', { name: 'Submit a request' }).click();
  await expect(customer).toHaveURL(/\/support\/acme\/new$/);
  await customer.getByLabel('Subject').fill(subject);
  await customer.getByLabel('Message').fill(body);
  await customer.getByRole('button', { name: 'Submit request' }).click();
  await customer.waitForURL(/\/support\/acme\/requests\/\d+$/);
  const number = Number(/requests\/(\d+)$/.exec(customer.url())![1]);
  await expect(customer.getByRole('heading', { level: 1 })).toHaveText(subject);
  await expect(customer.getByText(body)).toBeVisible();
  return number;
}

/**
 * Posts a form of the page twice at once, as a resubmitted POST does: the same fields, the same
 * per-render key. Gives the two responses' Location headers (an action that wrote redirects).
 */
async function postTwice(page: Page, form: Locator, intent?: string) {
  const fields = await form.evaluate((f: HTMLFormElement) =>
    [...new FormData(f).entries()].map(([k, v]) => [k, String(v)] as const),
  );
  const body = Object.fromEntries(intent ? [...fields, ['intent', intent] as const] : fields);
  const send = () =>
    page.request.post(page.url(), { form: body, headers: { Origin: new URL(page.url()).origin }, maxRedirects: 0 });
  const responses = await Promise.all([send(), send()]);
  return responses.map((r) => `${r.status()} ${r.headers().location ?? ''}`);
}

/** The core path; run with and without JavaScript. */
async function corePath(customer: Page, agent: Page, agentName: string, customerEmail: string, javaScript: boolean) {
  const tag = randomUUID().slice(0, 8);
  const subject = `Blender arrived broken ${tag}`;
  const number = await openRequest(customer, subject, `The lid is cracked (${tag}).`);

  // The agent finds it in "unassigned" and takes it.
  await agent.goto('/w/acme?view=unassigned');
  await agent.getByRole('link', { name: subject }).click();
  await expect(agent).toHaveURL(new RegExp(`/w/acme/tickets/${number}$`));
  // Who is asking: their email and their other requests, one click away.
  await expect(agent.getByTestId('requester-email')).toHaveText(customerEmail);
  await expect(
    agent.getByRole('list', { name: 'Their other recent requests' }).getByRole('link').first(),
  ).toBeVisible();
  await agent.getByRole('button', { name: 'Assign to me' }).click();
  await expect(agent.locator('.hd-ticket__facts')).toContainText(`assigned to ${agentName}`);

  const note = `Warehouse says the batch was dropped (${tag}).`;
  await send(agent, note, { kind: 'note' });
  const noteItem = agent.locator('[data-kind="note"]', { hasText: note });
  await expect(noteItem).toBeVisible();
  await expect(noteItem).toContainText('Internal note');

  const reply = `Sorry about that! A replacement is on its way (${tag}). Can you confirm your address?`;
  await send(agent, reply, { status: 'pending' });
  await expect(agent.locator('[data-kind="reply"]', { hasText: reply })).toBeVisible();
  await expect(ticketStatus(agent)).toHaveAttribute('data-status', 'pending');

  // The customer sees the reply, never the note, and reopens the request by replying.
  await customer.goto(`/support/acme/requests/${number}`);
  await expect(customer.getByText(reply)).toBeVisible();
  await expect(customer.getByText(note)).toHaveCount(0);
  await expect(customer.getByText('Internal note')).toHaveCount(0);
  await expect(customer.locator('[data-status]').first()).toHaveAttribute('data-status', 'pending');
  const answer = `Yes, same address as before (${tag}).`;
  await customer.getByLabel('Your reply').fill(answer);
  await customer.getByRole('button', { name: 'Send reply' }).click();
  await expect(customer.locator('[data-kind="reply"]', { hasText: answer })).toBeVisible();
  await expect(customer.locator('[data-status]').first()).toHaveAttribute('data-status', 'open');

  // The agent's page is from before that reply: the traffic cop keeps the draft and shows the new message.
  const draft = `Great, shipping today (${tag}).`;
  await send(agent, draft, { status: 'solved' });
  await expect(agent.getByRole('alert').filter({ hasText: TICKET_CHANGED })).toBeVisible();
  await expect(agent.locator('[data-kind="reply"]', { hasText: answer })).toBeVisible();
  await expect(composer(agent).getByLabel('Message', { exact: true })).toHaveValue(draft);
  await expect(ticketStatus(agent)).toHaveAttribute('data-status', 'open');
  await composer(agent).getByLabel('Send and set status').selectOption('solved');
  await composer(agent).getByRole('button', { name: 'Send', exact: true }).click();
  await expect(ticketStatus(agent)).toHaveAttribute('data-status', 'solved');
  await expect(agent.locator('[data-kind="reply"]', { hasText: draft })).toBeVisible();
  await expect(agent.getByRole('alert').filter({ hasText: TICKET_CHANGED })).toHaveCount(0);
  await expect(agent.locator('.hd-history')).toContainText(`${agentName} changed status from open to solved`);

  await customer.goto(`/support/acme/requests/${number}`);
  await expect(customer.getByText(draft)).toBeVisible();
  await expect(customer.locator('[data-status]').first()).toHaveAttribute('data-status', 'solved');
  await customer.goto('/support/acme');
  await expect(customer.getByTestId('my-requests')).toContainText(subject);
  void javaScript;
  return number;
}

test.describe('helpdesk with JavaScript', () => {
  test.describe.configure({ mode: 'serial' });
  let customer: { context: BrowserContext; page: Page };
  let agent: { context: BrowserContext; page: Page };
  let ticketNumber = 0;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(60_000);
    customer = await signedInContext(browser, 'customer@example.test');
    agent = await signedInContext(browser, 'agent@acme.test');
  });
  test.afterAll(async () => {
    await customer?.context.close();
    await agent?.context.close();
  });

  test('a request goes from the customer to the agent and back, notes stay internal', async () => {
    test.setTimeout(90_000);
    ticketNumber = await corePath(customer.page, agent.page, 'Alex Agent', 'customer@example.test', true);
  });

  test('a validation error keeps what was typed', async () => {
    const page = customer.page;
    await page.goto('/support/acme/new');
    await page.getByLabel('Subject').fill('Only a subject');
    const response = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Submit request' }).click();
    expect((await response).status()).toBe(400);
    await expect(page.getByText('Write a message.')).toBeVisible();
    await expect(page.getByLabel('Subject')).toHaveValue('Only a subject');
    await expect(page).toHaveURL(/\/support\/acme\/new$/);
  });

  test('a form sent twice writes once, and the reply box empties after sending', async () => {
    test.setTimeout(60_000);
    const c = customer.page;
    const a = agent.page;
    const tag = randomUUID().slice(0, 8);
    // A new request posted twice: both sends land on one request, with one message.
    await c.goto('/support/acme/new');
    const subject = `Sent twice ${tag}`;
    const first = `Only once, please (${tag}).`;
    await c.getByLabel('Subject').fill(subject);
    await c.getByLabel('Message').fill(first);
    const created = await postTwice(c, c.locator('form', { has: c.getByLabel('Subject') }));
    expect(created[0]).toMatch(/^302 \/support\/acme\/requests\/\d+$/);
    expect(created[1]).toBe(created[0]);
    const url = created[0].split(' ')[1];
    await c.goto(url);
    await expect(c.locator('[data-kind="reply"]', { hasText: first })).toHaveCount(1);

    // The customer's double click sends one reply, and the box is empty again for the next.
    const reply = `Any news? (${tag})`;
    await c.getByLabel('Your reply').fill(reply);
    await c.getByRole('button', { name: 'Send reply' }).dblclick();
    await expect(c.locator('[data-kind="reply"]', { hasText: reply })).toBeVisible();
    await expect(c.getByLabel('Your reply')).toHaveValue('');
    await c.reload();
    await expect(c.locator('[data-kind="reply"]', { hasText: reply })).toHaveCount(1);

    // The agent's note and reply posted twice: one of each, and no "someone replied" for the second.
    const number = Number(url.split('/').at(-1));
    await a.goto(`/w/acme/tickets/${number}`);
    const note = `Resent note (${tag}).`;
    await composer(a).getByRole('radio', { name: 'Internal note' }).check();
    await composer(a).getByLabel('Message', { exact: true }).fill(note);
    const noted = await postTwice(a, composer(a), 'send');
    expect(noted).toEqual([`302 /w/acme/tickets/${number}`, `302 /w/acme/tickets/${number}`]);
    await a.reload();
    await expect(a.locator('[data-kind="note"]', { hasText: note })).toHaveCount(1);
    // A reply written on this page, posted twice: the second is not news to its own writer (409).
    const answer = `Resent answer (${tag}).`;
    await composer(a).getByRole('radio', { name: 'Reply to customer' }).check();
    await composer(a).getByLabel('Message', { exact: true }).fill(answer);
    const answered = await postTwice(a, composer(a), 'send');
    expect(answered).toEqual([`302 /w/acme/tickets/${number}`, `302 /w/acme/tickets/${number}`]);
    await a.reload();
    const clicked = `Double-clicked answer (${tag}).`;
    await composer(a).getByLabel('Message', { exact: true }).fill(clicked);
    await composer(a).getByRole('button', { name: 'Send', exact: true }).dblclick();
    await expect(a.locator('[data-kind="reply"]', { hasText: clicked })).toBeVisible();
    await expect(composer(a).getByLabel('Message', { exact: true })).toHaveValue('');
    await expect(a.getByRole('alert').filter({ hasText: TICKET_CHANGED })).toHaveCount(0);
    await a.reload();
    await expect(a.locator('[data-kind="reply"]', { hasText: clicked })).toHaveCount(1);
    await expect(a.locator('[data-kind="reply"]', { hasText: answer })).toHaveCount(1);
  });

  test('of two sidebar changes made on one view of the ticket, the second is told what happened', async ({
    browser,
  }) => {
    const a = agent.page;
    // A second window of the same agent, also without live updates: it keeps showing the old values.
    const other = await browser.newContext({ baseURL: env.baseURL, storageState: await agent.context.storageState() });
    await other.routeWebSocket(/\/realtime\/v1\/websocket/, () => undefined);
    try {
      const b = await other.newPage();
      const url = `/w/acme/tickets/${ticketNumber}`;
      await Promise.all([a.goto(url), b.goto(url)]);
      await expect(b.locator('.hd-ticket__facts')).toContainText('assigned to Alex Agent');

      // Each field is saved as it changes: shown at once, then "Saved".
      await a.getByLabel('Assignee').selectOption({ label: 'Sam Support' });
      await expect(a.locator('.hd-ticket__facts')).toContainText('assigned to Sam Support');
      await expect(a.getByTestId('assignee-progress')).toHaveText('Saved');
      await b.getByLabel('Assignee').selectOption({ label: 'Nobody' });
      await expect(
        b.getByText('Alex Agent assigned this ticket to Sam Support a moment ago. This is how it is now.'),
      ).toBeVisible();
      await expect(b.locator('.hd-ticket__facts')).toContainText('assigned to Sam Support');
      await expect(b.getByLabel('Assignee').locator('option:checked')).toHaveText('Sam Support');

      await a.getByLabel('Priority').selectOption('high');
      await expect(a.locator('.hd-ticket__facts')).toContainText('High');
      await expect(a.getByTestId('priority-progress')).toHaveText('Saved');
      await b.getByLabel('Priority').selectOption('low');
      await expect(b.getByText('Alex Agent changed the priority to High a moment ago.')).toBeVisible();
      await expect(b.getByLabel('Priority')).toHaveValue('high');
      await b.reload();
      await expect(b.locator('.hd-ticket__facts')).toContainText('assigned to Sam Support');
    } finally {
      await other.close();
    }
  });

  test('the home page lists my workspaces and my requests', async () => {
    await agent.page.goto('/');
    await expect(agent.page.getByTestId('my-workspaces').getByRole('link', { name: 'Acme Support' })).toHaveAttribute(
      'href',
      '/w/acme',
    );
    await customer.page.goto('/');
    await expect(customer.page.getByTestId('my-requests').getByRole('link').first()).toHaveAttribute(
      'href',
      /\/support\/acme\/requests\/\d+$/,
    );
  });

  test('the inbox: views with counts, search, claim next', async () => {
    const page = agent.page;
    await page.goto('/w/acme?view=all');
    await expect(page.getByRole('link', { name: /^All/ })).toHaveAttribute('aria-current', 'page');
    const all = Number(await page.getByTestId('count-all').textContent());
    expect(all).toBeGreaterThan(25);
    await expect(page.getByTestId('inbox-row')).toHaveCount(25);
    await expect(page.getByTestId('inbox-range')).toHaveText(`1–25 of ${all}`);
    // The newest request on page 1 (other tests run beside this one and can only push rows down).
    const newest = page.getByTestId('inbox-row').first().locator('.hd-cell-subject a');
    const newestHref = (await newest.getAttribute('href'))!;
    const rowLink = page
      .getByTestId('inbox-row')
      .getByRole('link')
      .and(page.locator(`[href="${newestHref}"]`));
    // Older and back: the next rows, then the newest page again.
    await page.getByRole('link', { name: 'Older →' }).click();
    await expect(page.getByTestId('inbox-range')).toHaveText(/^26–\d+ of \d+$/);
    await expect(page.getByTestId('inbox-row')).not.toHaveCount(0);
    await expect(rowLink).toHaveCount(0);
    // A request comes in while the agent reads page 2: "← Newer" leads to the first page itself, with it on
    // top and nothing newer above (not to the 25 tickets just before page 2's first, a "first" page that
    // would still have "← Newer").
    const arrived = `Arrived while paging ${randomUUID().slice(0, 8)}`;
    await openRequest(customer.page, arrived, 'It came in while the agent was on page 2.');
    await page.getByRole('link', { name: '← Newer' }).click();
    await expect(page.getByTestId('inbox-range')).toHaveText(/^1–25 of \d+$/);
    await expect(page.getByTestId('inbox-row').getByRole('link', { name: arrived })).toHaveCount(1);
    await expect(rowLink).toHaveCount(1);
    await expect(page.getByRole('link', { name: '← Newer' })).toHaveCount(0);
    await page.getByLabel('Search').fill('blender');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page).toHaveURL(/q=blender/);
    await expect(page.getByTestId('inbox-row').first()).toContainText(/blender/i);
    await page.getByRole('button', { name: 'Claim next' }).click();
    await expect(page).toHaveURL(/\/w\/acme\/tickets\/\d+$/);
    await expect(page.locator('.hd-ticket__facts')).toContainText('assigned to Alex Agent');
  });

  test('onboarding: a taken address is refused at the field, a free one opens the new inbox', async () => {
    const page = agent.page;
    await page.goto('/onboarding');
    await page.getByLabel('Workspace name').fill('Second Acme');
    await page.getByLabel('Address').fill('acme');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await expect(page.getByText('That address is taken.')).toBeVisible();
    await expect(page.getByLabel('Workspace name')).toHaveValue('Second Acme');
    await expect(page.getByLabel('Address')).toHaveValue('acme');
    const slug = `team-${randomUUID().slice(0, 8)}`;
    await page.getByLabel('Address').fill(slug);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}$`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Inbox');
  });

  test('the helpdesk pages have no axe violations', async () => {
    test.setTimeout(120_000);
    const check = async (page: Page, url: string) => {
      await page.goto(url);
      await expectNoViolations(page, { what: url });
    };
    await check(customer.page, '/support/acme');
    await check(customer.page, '/support/acme/new');
    await check(customer.page, `/support/acme/requests/${ticketNumber}`);
    await check(customer.page, '/');
    await check(agent.page, '/w/acme?view=all');
    await check(agent.page, `/w/acme/tickets/${ticketNumber}`);
    await check(agent.page, '/onboarding');
  });

  test("an agent of another workspace can't see the ticket or the inbox", async ({ browser }) => {
    test.setTimeout(60_000);
    expect(ticketNumber).toBeGreaterThan(0);
    const globex = await signedInContext(browser, 'agent@globex.test');
    try {
      const res = await globex.page.goto(`/w/acme/tickets/${ticketNumber}`);
      expect(res?.status()).toBe(404);
      await expect(globex.page.getByRole('heading', { level: 1 })).toHaveText(NOT_FOUND);
      const inbox = await globex.page.goto('/w/acme');
      expect(inbox?.status()).toBe(404);
      const portal = await globex.page.goto(`/support/acme/requests/${ticketNumber}`);
      expect(portal?.status()).toBe(404);
    } finally {
      await globex.context.close();
    }
  });

  test('only an admin closes a solved request; the customer then gets a follow-up link', async ({ browser }) => {
    test.setTimeout(60_000);
    expect(ticketNumber).toBeGreaterThan(0);
    const url = `/w/acme/tickets/${ticketNumber}`;
    await agent.page.goto(url);
    await expect(ticketStatus(agent.page)).toHaveAttribute('data-status', 'solved');
    await agent.page.getByLabel('Status', { exact: true }).selectOption('closed');
    await expect(agent.page.getByText("A ticket can't go from solved to closed.")).toBeVisible();
    await expect(ticketStatus(agent.page)).toHaveAttribute('data-status', 'solved');

    const admin = await signedInContext(browser, 'admin@acme.test');
    try {
      await admin.page.goto(url);
      await admin.page.getByLabel('Status', { exact: true }).selectOption('closed');
      await expect(ticketStatus(admin.page)).toHaveAttribute('data-status', 'closed');
      await expect(composer(admin.page)).toHaveCount(0);
    } finally {
      await admin.context.close();
    }

    await customer.page.goto(`/support/acme/requests/${ticketNumber}`);
    const notice = customer.page.getByTestId('closed-notice');
    await expect(notice).toContainText('This request is closed.');
    await expect(customer.page.getByLabel('Your reply')).toHaveCount(0);
    await notice.getByRole('link', { name: 'Open a follow-up request' }).click();
    await expect(customer.page).toHaveURL(/\/support\/acme\/new$/);
  });
});

test('a deep link to a new request survives signing in, and the portal is public', async ({ page }) => {
  await page.goto('/support/acme');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Acme Support');
  await page.getByRole('link', { name: 'Submit a request' }).click();
  await expect(page).toHaveURL(/\/login\?redirectTo=%2Fsupport%2Facme%2Fnew$/);
  const email = uniqueEmail('portal');
  await requestCode(page, email);
  await enterCode(page, await codeFor(email));
  await page.waitForURL(/\/support\/acme\/new$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Submit a request');
  const missing = await page.goto('/support/no-such-workspace');
  expect(missing?.status()).toBe(404);
});

test.describe('helpdesk without JavaScript', () => {
  test('the core path works with plain forms', async ({ browser }) => {
    test.setTimeout(120_000);
    const customer = await signedInContext(browser, 'customer2@example.test', { javaScript: false });
    const agent = await signedInContext(browser, 'agent2@acme.test', { javaScript: false });
    try {
      await corePath(customer.page, agent.page, 'Sam Support', 'customer2@example.test', false);
    } finally {
      await customer.context.close();
      await agent.context.close();
    }
  });
});
