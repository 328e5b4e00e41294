// Reports end to end (docs/product.md#reports, issue 18): an admin's new workspace gets tickets at known
// moments; the reports page shows them in its chart, table and figures, the range switches (presets
// and custom days, a wrong range refused at its field with what was typed), with JavaScript and
// without; an agent is refused as on every admin page. Screenshots at 1366 and 375 px are attached
// to the run. Fresh accounts and a workspace of their own (the seeded accounts get one code a minute).
import type { Page } from '@playwright/test';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  service,
  signInByForm,
  test,
  uniqueEmail,
} from './fixtures.ts';

/** The service role's call to the stack (test setup only). */

/** YYYY-MM-DD `n` days before today (UTC, the new workspace's zone), and a moment on that day. */
const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const at = (n: number, time: string) => `${day(n)}T${time}:00Z`;

/**
 * Four tickets, written as the platform would import them: three opened two days ago, one yesterday;
 * first answers after 1 h and 3 h; two solved yesterday, after 24 h and 30 h.
 */
async function seedTickets(slug: string) {
  const [ws] = await service(`/rest/v1/workspaces?slug=eq.${slug}&select=id,memberships(user_id)`);
  const admin = ws.memberships[0].user_id;
  // One set of columns for every row (PostgREST's bulk insert).
  const ticket = (subject: string, fields: Record<string, unknown>) => ({
    workspace_id: ws.id,
    requester_id: admin,
    subject,
    assignee_id: null,
    first_response_at: null,
    solved_at: null,
    ...fields,
  });
  await service('/rest/v1/tickets', {
    method: 'POST',
    body: JSON.stringify([
      ticket('Solved after a day', {
        status: 'solved',
        created_at: at(2, '10:00'),
        first_response_at: at(2, '11:00'),
        solved_at: at(1, '10:00'),
      }),
      ticket('Waiting on us', {
        status: 'open',
        assignee_id: admin,
        created_at: at(2, '10:00'),
        first_response_at: at(2, '13:00'),
        solved_at: null,
      }),
      ticket('Solved after 30 hours', {
        status: 'solved',
        created_at: at(2, '10:00'),
        first_response_at: null,
        solved_at: at(1, '16:00'),
      }),
      ticket('Not answered yet', {
        status: 'new',
        created_at: at(1, '10:00'),
        first_response_at: null,
        solved_at: null,
      }),
    ]),
  });
  return ws.id as string;
}

const row = (page: Page, n: number) => page.getByTestId('volume-table').locator(`tr[data-day="${day(n)}"]`);

for (const javaScript of [true, false]) {
  test(`the reports page charts the tickets and switches its range (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const { context, page } = await newContext(browser, { javaScript });
    const slug = await newWorkspace(page, { label: 'reports' });
    await seedTickets(slug);

    // From the header's admin links.
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Reports' }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/reports$`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Reports');
    await expect(page.getByRole('link', { name: 'Last 30 days' })).toHaveAttribute('aria-current', 'page');

    await page.getByRole('link', { name: 'Last 7 days' }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/reports\\?range=7$`));
    await expect(page.getByRole('link', { name: 'Last 7 days' })).toHaveAttribute('aria-current', 'page');
    // The custom days' fields start from the range shown (a new workspace's zone is UTC), labelled on screen.
    await expect(page.getByLabel('From', { exact: true })).toHaveValue(day(6));
    await expect(page.getByLabel('To', { exact: true })).toHaveValue(day(0));
    await expect(page.getByText('From', { exact: true })).toBeVisible();
    // The chart: an image with its title and description, a bar per day with tickets created.
    const chart = page.getByRole('img', { name: /Tickets created and solved per day/ });
    await expect(chart).toBeVisible();
    await expect(page.locator('#volume-chart-desc')).toContainText('Created: 4, most on');
    await expect(page.locator('#volume-chart-desc')).toContainText('Solved: 2, most on');
    await expect(page.locator(`rect[data-day="${day(2)}"]`)).toHaveAttribute('data-created', '3');
    await expect(page.locator(`rect[data-day="${day(1)}"]`)).toHaveAttribute('data-created', '1');
    // Its numbers, day by day.
    await expect(page.getByTestId('volume-table').locator('tbody tr')).toHaveCount(7);
    await expect(row(page, 2).locator('td')).toHaveText(['3', '0']);
    await expect(row(page, 1).locator('td')).toHaveText(['1', '2']);
    await expect(page.getByTestId('created-total')).toHaveText('4');
    await expect(page.getByTestId('solved-total')).toHaveText('2');
    await expect(page.getByTestId('first-response-median')).toHaveText('1 h');
    await expect(page.getByTestId('first-response-p90')).toHaveText('3 h');
    await expect(page.getByTestId('resolution-median')).toHaveText('1 d');
    await expect(page.getByTestId('resolution-p90')).toHaveText('1 d 6 h');
    await expect(page.getByTestId('backlog-status').locator('tbody tr')).toHaveText(['New1', 'Open1', 'Pending0']);
    const assignees = page.getByTestId('backlog-assignee').locator('tbody tr');
    await expect(assignees).toHaveCount(2);
    await expect(assignees.filter({ hasText: 'Unassigned' }).locator('td')).toHaveText(['1', '0', '0', '1']);
    await expect(page.getByRole('img', { name: /Tickets created by weekday and hour/ })).toBeVisible();
    await expect(page.locator('#hours-chart-desc')).toContainText('10:00–11:00 (3)');
    if (javaScript) {
      await expectNoViolations(page);
      // The backlog tables fit the card: no sideways scrolling inside them either.
      await screenshots(page, 'reports', async (width) => {
        const wrap = page.getByTestId('backlog-assignee').locator('xpath=..');
        expect(
          await wrap.evaluate((el) => el.scrollWidth - el.clientWidth),
          `backlog at ${width} px`,
        ).toBeLessThanOrEqual(0);
      });
    }

    // Custom days: the two with tickets.
    await page.getByLabel('From', { exact: true }).fill(day(2));
    await page.getByLabel('To', { exact: true }).fill(day(1));
    await page.getByRole('button', { name: 'Show these days' }).click();
    await expect(page).toHaveURL(new RegExp(`from=${day(2)}&to=${day(1)}$`));
    await expect(page.getByTestId('volume-table').locator('tbody tr')).toHaveCount(2);
    await expect(page.getByTestId('created-total')).toHaveText('4');
    await expect(page.getByRole('link', { name: 'Last 7 days' })).not.toHaveAttribute('aria-current', 'page');

    // An end before the start: the catalogue's message at the field, the dates kept.
    await page.getByLabel('From', { exact: true }).fill(day(1));
    await page.getByLabel('To', { exact: true }).fill(day(3));
    await page.getByRole('button', { name: 'Show these days' }).click();
    await expect(page.locator('#report-to-error')).toHaveText(
      'Choose an end date on or after the start date, at most 366 days later.',
    );
    await expect(page.getByLabel('From', { exact: true })).toHaveValue(day(1));
    await expect(page.getByLabel('To', { exact: true })).toHaveValue(day(3));
    await expect(page.getByTestId('volume-chart')).toHaveCount(0);
    if (javaScript) await expectNoViolations(page);
    else expect((await page.request.get(`/w/${slug}/reports?from=${day(1)}&to=${day(3)}`)).status()).toBe(400);

    await page.getByRole('link', { name: 'Last 90 days' }).click();
    await expect(page.getByTestId('volume-table').locator('tbody tr')).toHaveCount(90);
    await expect(page.getByTestId('report-range')).toContainText('(the last 90 days)');
    await context.close();
  });
}

test('an agent is refused the reports page and sees no link to it', async ({ browser }) => {
  test.setTimeout(90_000);
  const { context: adminContext, page: admin } = await newContext(browser);
  const slug = await newWorkspace(admin, { label: 'reports' });
  const workspaceId = await seedTickets(slug);
  const email = uniqueEmail('agent');
  const user = await service('/auth/v1/admin/users', {
    method: 'POST',
    body: JSON.stringify({ email, email_confirm: true }),
  });
  await service('/rest/v1/memberships', {
    method: 'POST',
    body: JSON.stringify({ workspace_id: workspaceId, user_id: user.id, role: 'agent' }),
  });
  const { context, page } = await newContext(browser);
  await signInByForm(page, email);
  await page.goto(`/w/${slug}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Inbox');
  await expect(page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Reports' })).toHaveCount(0);
  const refused = await page.goto(`/w/${slug}/reports`);
  expect(refused?.status()).toBe(403);
  await expect(page.getByText("You don't have access to this.")).toBeVisible();
  await context.close();
  await adminContext.close();
});
