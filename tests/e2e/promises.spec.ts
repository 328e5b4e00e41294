// Promises kept (issue 28; docs/product.md "Business hours and SLA targets"): an admin sets opening
// hours, a holiday and SLA targets at /w/:slug/settings/hours (refused input comes back at its field,
// kept), with JavaScript and without; a request opened on Friday 17:30 is due on Monday morning in the
// inbox and the ticket header; a breach the sweep sees turns red live in another member's inbox.
// Fresh accounts and workspaces of their own.
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  serviceRest,
  signedInContext,
  superuserSql as sql,
  test,
  uniqueEmail,
  userId,
} from './fixtures.ts';

/** A request in the workspace, opened by its admin as requester, "created" at `createdAt` (as if). */
async function requestAt(slug: string, requester: string, subject: string, createdAt: string) {
  const [t] = await sql(
    `insert into tickets (workspace_id, requester_id, subject) select id, $2, $3 from workspaces where slug = $1 returning id, number`,
    [slug, requester, subject],
  );
  await sql(`update tickets set created_at = $2 where id = $1`, [t.id, createdAt]);
  await sql('select private.sla_refresh($1)', [t.id]);
  return t as { id: string; number: number };
}

/** A Friday at least a week ahead, 17:30 (wall time: the test reads it in Berlin). */
function nextFridayEvening(): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + 7 + ((5 - d.getUTCDay() + 7) % 7));
  return `${d.toISOString().slice(0, 10)}T17:30:00`;
}

async function saveHours(page: Page, weekday: string, line: string) {
  await page.getByLabel(weekday, { exact: true }).fill(line);
  await page.getByRole('button', { name: 'Save hours' }).click();
}

for (const javaScript of [true, false]) {
  test(`an admin sets hours, a holiday and targets; a Friday evening request is due on Monday (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    // A browser in Berlin too: with JavaScript the pages say times in the browser's zone.
    const { context, page } = await newContext(browser, { javaScript, timezoneId: 'Europe/Berlin' });
    const slug = await newWorkspace(page);
    await page.goto(`/w/${slug}/settings`);
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('Saved.')).toBeVisible();

    await page
      .getByRole('navigation', { name: 'Workspace administration' })
      .getByRole('link', { name: 'Hours and targets' })
      .click();
    await expect(page.getByRole('heading', { name: 'Hours and targets', level: 1 })).toBeVisible();
    await expect(page.getByText('In Europe/Berlin')).toBeVisible();

    // Overlapping periods: refused at the field, what was typed kept.
    await saveHours(page, 'Monday', '08:00–12:00, 11:00–14:00');
    const monday = page.getByLabel('Monday', { exact: true });
    await expect(monday).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByText('Write hours as 08:00–12:00, 13:30–18:00')).toBeVisible();
    await expect(monday).toHaveValue('08:00–12:00, 11:00–14:00');

    for (const day of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'])
      await page.getByLabel(day, { exact: true }).fill('8:00-12:00, 13:30-18:00');
    await page.getByRole('button', { name: 'Save hours' }).click();
    await expect(page.getByText('Opening hours saved.')).toBeVisible();
    await expect(page.getByLabel('Friday', { exact: true })).toHaveValue('08:00–12:00, 13:30–18:00');
    await expect(page.getByLabel('Saturday', { exact: true })).toHaveValue('');

    // A holiday: a name is needed; then it is listed, and can go again.
    const holidayForm = page.getByRole('form', { name: 'Add a holiday' });
    await holidayForm.getByLabel('Day').fill('2030-12-25');
    await holidayForm.getByRole('button', { name: 'Add holiday' }).click();
    await expect(page.getByText('Enter a name of 1 to 80 characters.')).toBeVisible();
    await expect(page.getByRole('form', { name: 'Add a holiday' }).getByLabel('Day')).toHaveValue('2030-12-25');
    await page.getByRole('form', { name: 'Add a holiday' }).getByLabel('Name').fill('Christmas');
    await page.getByRole('form', { name: 'Add a holiday' }).getByRole('button', { name: 'Add holiday' }).click();
    await expect(page.getByTestId('holidays')).toContainText('Wed 25 Dec 2030 Christmas');

    // Targets: a word that is no duration is refused, kept; then saved.
    const first = page.getByLabel('First response').nth(1); // Normal (Low is first)
    await first.fill('soon');
    await page.getByRole('button', { name: 'Save targets' }).click();
    await expect(page.getByText('Write a target as minutes or hours')).toBeVisible();
    await expect(page.getByLabel('First response').nth(1)).toHaveValue('soon');
    await page.getByLabel('First response').nth(1).fill('1h');
    await page.getByLabel('Resolution').nth(1).fill('2 hours 30 min');
    await page.getByRole('button', { name: 'Save targets' }).click();
    await expect(page.getByText('Targets saved.')).toBeVisible();
    await expect(page.getByLabel('First response').nth(1)).toHaveValue('1h');
    await expect(page.getByLabel('Resolution').nth(1)).toHaveValue('2h 30m');
    if (javaScript) await expectNoViolations(page);
    if (javaScript) await screenshots(page, 'settings-hours');

    // A request opened on Friday 17:30 Berlin: 30 minutes that day, 30 on Monday from 08:00.
    const friday = nextFridayEvening();
    const me = await userId(page);
    const [{ at }] = await sql(`select ($1::timestamp at time zone 'Europe/Berlin')::text as at`, [friday]);
    const ticket = await requestAt(slug, me, `Friday evening ${randomUUID().slice(0, 6)}`, at);
    await page.goto(`/w/${slug}?view=breaching`);
    const row = page.getByTestId('inbox-row').filter({ hasText: 'Friday evening' });
    await expect(row.getByTestId('due')).toHaveAttribute('title', /^Due Mon \d+ \w+, 08:30 UTC\+[12]$/);
    await expect(row.getByTestId('due')).toHaveText(/^due in \d+ d$/);
    if (javaScript) await expectNoViolations(page);
    if (javaScript) await screenshots(page, 'inbox-due');
    await page.goto(`/w/${slug}/tickets/${ticket.number}`);
    await expect(page.getByTestId('due')).toHaveText(/^First response due in \d+ d · Mon \d+ \w+, 08:30 UTC\+[12]$/);
    await context.close();
  });
}

test('a breach the sweep sees turns red live in another member’s inbox, and the history says so', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const tag = randomUUID().slice(0, 8);
  const slug = `breach-${tag}`;
  const [admin, agent] = await Promise.all(
    ['admin', 'agent'].map((who) => signedInContext(browser, uniqueEmail(who), { live: who === 'agent' })),
  );
  await admin.page.goto('/onboarding');
  await admin.page.getByLabel('Workspace name').fill(`Breach ${tag}`);
  await admin.page.getByLabel('Address').fill(slug);
  await admin.page.getByRole('button', { name: 'Create workspace' }).click();
  await admin.page.waitForURL(`/w/${slug}`);
  const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
  await serviceRest('memberships', {
    method: 'POST',
    body: JSON.stringify({ workspace_id: workspace.id, user_id: await userId(agent.page), role: 'agent' }),
  });
  await admin.page.goto(`/w/${slug}/settings/hours`);
  await admin.page.getByLabel('First response').nth(1).fill('30m');
  await admin.page.getByLabel('Count business hours only').nth(1).uncheck();
  await admin.page.getByRole('button', { name: 'Save targets' }).click();
  await expect(admin.page.getByText('Targets saved.')).toBeVisible();

  // Opened 29 minutes ago (as if): amber, a minute left.
  const adminId = await userId(admin.page);
  const ticket = await requestAt(slug, adminId, `Waiting ${tag}`, new Date(Date.now() - 29 * 60_000).toISOString());
  const page = agent.page;
  await page.goto(`/w/${slug}?view=breaching`);
  await expect(page.getByTestId('live-status')).toHaveText(/live/i);
  const due = page
    .getByTestId('inbox-row')
    .filter({ hasText: `Waiting ${tag}` })
    .getByTestId('due');
  await expect(due).toHaveClass(/pr-due--warning/);

  // Two minutes later (as if), the sweep sees the breach, in one commit: the open inbox turns red by itself.
  await sql(
    `begin;
     update tickets set created_at = created_at - interval '2 minutes' where id = '${ticket.id}';
     select private.sla_refresh('${ticket.id}');
     select public.record_sla_breaches();
     commit;`,
  );
  await expect(due).toHaveClass(/pr-due--breached/);
  await expect(due).toHaveText(/^overdue \d+ min$/);
  await screenshots(page, 'inbox-breached');

  await page.goto(`/w/${slug}/tickets/${ticket.number}`);
  await expect(page.getByText('First response target missed')).toBeVisible();
  await expect(page.getByTestId('due')).toHaveClass(/pr-due--breached/);
  await expectNoViolations(page);
  await screenshots(page, 'ticket-breached');
  await Promise.all([admin.context.close(), agent.context.close()]);
});

for (const javaScript of [true, false]) {
  test(`an admin turns on automatic assignment; away gets nothing, becoming available picks up what waits (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const { context, page } = await newContext(browser, { javaScript });
    const slug = await newWorkspace(page);
    await page.goto(`/w/${slug}/settings/assignment`);
    await expect(page.getByRole('heading', { name: 'Automatic assignment', level: 1 })).toBeVisible();
    await page.getByLabel('Round robin').check();
    const cap = page.getByLabel('Most open tickets per member');
    await cap.fill('lots');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('Enter a cap of 1 to 10,000 open tickets')).toBeVisible();
    await expect(page.getByLabel('Most open tickets per member')).toHaveValue('lots');
    await expect(page.getByLabel('Round robin')).toBeChecked();
    await page.getByLabel('Most open tickets per member').fill('5');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('Saved.')).toBeVisible();
    await expect(page.getByTestId('availability')).toContainText('Available');
    if (javaScript) {
      await expectNoViolations(page);
      await screenshots(page, 'settings-assignment');
    }

    // Away: a new request waits unassigned. Available again: it is mine.
    await page.goto(`/w/${slug}`);
    await expect(page.getByTestId('availability')).toHaveText('Available for new tickets');
    await page.getByRole('button', { name: 'Go away' }).click();
    await expect(page.getByTestId('availability')).toHaveText('Away: no new tickets');
    const me = await userId(page);
    await sql(
      `insert into tickets (workspace_id, requester_id, subject) select id, $2, 'Waiting for someone' from workspaces where slug = $1`,
      [slug, me],
    );
    await page.goto(`/w/${slug}?view=unassigned`);
    await expect(page.getByTestId('inbox-row').filter({ hasText: 'Waiting for someone' })).toBeVisible();
    await page.getByRole('button', { name: 'Become available' }).click();
    await expect(page.getByTestId('availability')).toHaveText('Available for new tickets');
    await page.goto(`/w/${slug}?view=mine`);
    await expect(page.getByTestId('inbox-row').filter({ hasText: 'Waiting for someone' })).toBeVisible();
    if (javaScript) await expectNoViolations(page);
    await context.close();
  });
}
