// Snooze end to end (docs/product.md#snooze), with JavaScript and without: an agent snoozes a request
// from the sidebar (a time in the past is refused at the field, kept), it leaves Unassigned for the
// Snoozed view, "Wake now" brings it back; snoozed again, it wakes when the customer replies, and (with
// JavaScript) when its time comes: the test moves the time into the past and the database's scheduler
// (pg_cron: every minute, every 2 s in the e2e run's own stack, tests/e2e/global-setup.ts) wakes it.
import type { Page } from '@playwright/test';
import pg from 'pg';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  signedInContext,
  test,
  uniqueEmail,
} from './fixtures.ts';

/** Moves a ticket's snooze into the past, as if its time had come (superuser, test setup only). */
async function snoozeDue(slug: string, number: number) {
  const db = new pg.Client({ connectionString: process.env.E2E_DB_URL });
  await db.connect();
  try {
    const { rowCount } = await db.query(
      `update tickets t set snoozed_until = now() - interval '1 second' from workspaces w
        where w.id = t.workspace_id and w.slug = $1 and t.number = $2 and t.snoozed_until is not null`,
      [slug, number],
    );
    expect(rowCount).toBe(1);
  } finally {
    await db.end();
  }
}

async function snooze(page: Page, preset: string, at?: string) {
  await page.getByLabel('Until').selectOption({ label: preset });
  if (at) await page.getByLabel(/^Date and time/).fill(at);
  await page.getByRole('button', { name: 'Snooze', exact: true }).click();
}

for (const javaScript of [true, false]) {
  test(`an agent snoozes a request; it wakes by hand, on the customer's reply${javaScript ? ' and on time' : ''} (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(300_000);
    const agent = await newContext(browser, { javaScript });
    const slug = await newWorkspace(agent.page, { label: 'snooze' });
    const customer = await signedInContext(browser, uniqueEmail('snoozer'), { javaScript });
    const c = customer.page;
    await c.goto(`/support/${slug}/new`);
    await c.getByLabel('Subject').fill('Refund when the parcel returns');
    await c.getByLabel('Message').fill('I sent it back today.');
    await c.getByRole('button', { name: 'Submit request' }).click();
    await c.waitForURL(/\/requests\/1$/);

    const a = agent.page;
    await a.goto(`/w/${slug}/tickets/1`);
    await expect(a.getByLabel(/^Date and time \(UTC\)/)).toBeVisible();
    // A time in the past: refused at the field, what was chosen kept.
    await snooze(a, 'At the time below', '2020-01-01T09:00');
    await expect(a.locator('#at-error')).toHaveText('Choose a time in the future, at most a year from now.');
    await expect(a.getByLabel(/^Date and time/)).toHaveValue('2020-01-01T09:00');
    if (javaScript) await expectNoViolations(a);
    await snooze(a, 'Tomorrow 9:00');
    await expect(a.getByText(/^Snoozed until/)).toHaveText(/^Snoozed until \d+ \w+ \d{4}, 09:00 UTC$/);
    await expect(a.locator('.hd-history')).toContainText('snoozed it until');
    await screenshots(a, `ticket-snoozed-js-${javaScript}`);

    // Out of Unassigned (and its count), in Snoozed.
    await a.goto(`/w/${slug}`);
    await expect(a.getByTestId('count-unassigned')).toHaveText('0');
    await expect(a.getByTestId('count-snoozed')).toHaveText('1');
    await expect(a.getByTestId('inbox-empty')).toBeVisible();
    await a.getByRole('link', { name: /^Snoozed/ }).click();
    await expect(a.getByTestId('inbox-row')).toHaveCount(1);
    await expect(a.getByTestId('inbox-row')).toContainText('snoozed until');
    if (javaScript) await expectNoViolations(a);
    await screenshots(a, `inbox-snoozed-js-${javaScript}`);

    // Wake now: back in Unassigned.
    await a.goto(`/w/${slug}/tickets/1`);
    await a.getByRole('button', { name: 'Wake now' }).click();
    await expect(a.getByLabel('Until')).toBeVisible();
    await a.goto(`/w/${slug}`);
    await expect(a.getByTestId('count-unassigned')).toHaveText('1');

    // Snoozed again, the customer's reply wakes it.
    await a.goto(`/w/${slug}/tickets/1`);
    await snooze(a, 'Monday 9:00');
    await expect(a.getByText(/^Snoozed until/)).toBeVisible();
    await c.goto(`/support/${slug}/requests/1`);
    await c.getByLabel('Your reply').fill('Any news on my refund?');
    await c.getByRole('button', { name: 'Send reply' }).click();
    await expect(c.getByText('Any news on my refund?')).toBeVisible();
    await a.reload();
    await expect(a.getByLabel('Until')).toBeVisible();
    await expect(a.locator('.hd-history')).toContainText('ended the snooze');

    if (javaScript) {
      // On time: the scheduler's job wakes it once its time has passed (a minute at most with any stack).
      await snooze(a, 'In 3 hours');
      await expect(a.getByText(/^Snoozed until/)).toBeVisible();
      await snoozeDue(slug, 1);
      await expect(async () => {
        await a.reload();
        await expect(a.getByLabel('Until')).toBeVisible({ timeout: 1000 });
      }).toPass({ timeout: 150_000, intervals: [1_000] });
      await expect(a.locator('.hd-history')).toContainText('Tend ended the snooze');
    }
  });
}
