// Bulk changes end to end (docs/product.md#bulk-changes), with JavaScript and without: an agent checks rows
// (with JavaScript, shift-click selects a range and the bar counts them), assigns them in one "Apply"
// and reads what happened; "All … matching this view" changes every ticket of the view across pages
// (30 tickets, 25 a page), and a status the state machine refuses is skipped and said; two checked
// tickets merge into the older after a confirmation. A client that leaves in the middle of "all matching" stops
// nothing: every batch is still made (docs/decisions/080-bulk-pacing.md).
import pg from 'pg';
import { waitFor } from '../../scripts/lib/wait.ts';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  serviceRest,
  superuserSql,
  test,
} from './fixtures.ts';

for (const javaScript of [true, false]) {
  test(`an agent changes many tickets at once (JavaScript ${javaScript ? 'on' : 'off'})`, async ({ browser }) => {
    test.setTimeout(300_000);
    const admin = await newContext(browser, { javaScript });
    const slug = await newWorkspace(admin.page, { label: 'bulk' });
    const a = admin.page;
    // 30 requests of the admin's own (the portal is open to any signed-in user), through the API.
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id,created_by`);
    await serviceRest('tickets', {
      method: 'POST',
      body: JSON.stringify(
        Array.from({ length: 30 }, (_, i) => ({
          workspace_id: workspace.id,
          requester_id: workspace.created_by,
          subject: `Bulk request ${i + 1}`,
        })),
      ),
    });

    await a.goto(`/w/${slug}?view=all`);
    const rows = a.getByTestId('inbox-row');
    await expect(rows).toHaveCount(25);
    // Nothing chosen: refused at the bar, nothing changed.
    await a.getByRole('button', { name: 'Update tickets' }).click();
    await expect(a.getByRole('form', { name: 'Change the selected requests' })).toContainText(
      'Choose what to do with the selected tickets.',
    );
    await a.getByLabel('Change the selected', { exact: true }).selectOption({ label: 'Me' });
    await a.getByRole('button', { name: 'Update tickets' }).click();
    await expect(a.getByRole('form', { name: 'Change the selected requests' })).toContainText(
      'Select at least one ticket, or all matching this view.',
    );

    // Three rows (the first three of the page: the 30 share one time, so their order is the ids'): with
    // JavaScript, the first and a shift-click on the third.
    const box = (i: number) => rows.nth(i).getByRole('checkbox');
    await box(0).check();
    if (javaScript) {
      // The page listens once the header's "select the page" box is there (a row checked before counts too).
      await expect(a.getByLabel('Select every request on this page')).toBeVisible();
      await box(2).click({ modifiers: ['Shift'] });
      await expect(a.getByTestId('selected')).toHaveText('3 selected');
      await expect(box(1)).toBeChecked();
      await expectNoViolations(a);
      await screenshots(a, 'inbox-selection');
    } else {
      await box(1).check();
      await box(2).check();
    }
    await a.getByLabel('Change the selected', { exact: true }).selectOption({ label: 'Me' });
    await a.getByRole('button', { name: 'Update tickets' }).click();
    await expect(a.getByTestId('bulk-done')).toHaveText('3 updated');
    await expect(a.getByTestId('count-mine')).toHaveText('3');
    await expect(box(0)).not.toBeChecked();

    // Every ticket of the view, across its two pages: solved; then pending, which a solved ticket can't be.
    await a.getByLabel('Change the selected', { exact: true }).selectOption({ label: 'Solved' });
    await a.getByLabel('All 30 matching this view').check();
    await a.getByRole('button', { name: 'Update tickets' }).click();
    await expect(a.getByTestId('bulk-done')).toHaveText('30 updated');
    await expect(a.getByTestId('count-solved')).toHaveText('30');
    await a.getByLabel('Change the selected', { exact: true }).selectOption({ label: 'Pending' });
    await a.getByLabel('All 30 matching this view').check();
    await a.getByRole('button', { name: 'Update tickets' }).click();
    await expect(a.getByTestId('bulk-done')).toHaveText('0 updated, 30 skipped: solved');

    // A tag on a search's matches (no count shown for a search).
    await a.goto(`/w/${slug}?view=all&q=${encodeURIComponent('"Bulk request 1"')}`);
    await a.getByLabel('Change the selected', { exact: true }).selectOption({ label: 'Add the tag' });
    await a.getByLabel('Tag', { exact: true }).fill('batch');
    await a.getByLabel('All matching this view').check();
    await a.getByRole('button', { name: 'Update tickets' }).click();
    await expect(a.getByTestId('bulk-done')).toHaveText(/^\d+ updated$/);
    await a.goto(`/w/${slug}?view=all&tag=batch`);
    await expect(rows.first()).toBeVisible();
    await screenshots(a, `inbox-bulk-js-${javaScript}`);

    // Merge: checked tickets only, into the oldest, after a confirmation that names them.
    await a.goto(`/w/${slug}?view=all`);
    const [first, second] = [rows.nth(0).getByRole('checkbox'), rows.nth(1).getByRole('checkbox')];
    await first.check();
    await second.check();
    await a.getByLabel('Change the selected', { exact: true }).selectOption({ label: 'Merge into the oldest' });
    await a.getByRole('button', { name: 'Update tickets' }).click();
    const confirm = a.getByRole('form', { name: 'Confirm the merge' });
    await expect(confirm).toContainText(/^Merge #\d+ into #\d+ Bulk request \d+\?/);
    await screenshots(a, `inbox-merge-confirm-js-${javaScript}`);
    await confirm.getByRole('button', { name: 'Merge 2 tickets' }).click();
    await expect(a.getByTestId('bulk-done')).toHaveText('1 updated');
  });
}

test('a bulk change the client leaves part-way is still made to the end, each ticket with its history', async ({
  browser,
  baseURL,
  clientIp,
}) => {
  test.setTimeout(120_000);
  const admin = await newContext(browser);
  const slug = await newWorkspace(admin.page, { label: 'bulk-left' });
  const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id,created_by`);
  // Three batches of "all matching" (1 000, 1 000, 50).
  await superuserSql(
    `insert into public.tickets (workspace_id, requester_id, subject)
     select $1, $2, 'Left part-way ' || g from generate_series(1, 2050) g`,
    [workspace.id, workspace.created_by],
  );
  const high = async () =>
    (
      await superuserSql(
        `select count(*)::int as n from public.tickets where workspace_id = $1 and priority = 'high'`,
        [workspace.id],
      )
    )[0].n as number;
  // A ticket of the second batch (the view's order) held by another transaction, so the run waits there.
  const db = new pg.Client({ connectionString: process.env.E2E_DB_URL });
  await db.connect();
  const left = new AbortController();
  try {
    await db.query('begin');
    await db.query(
      `select id from public.tickets where id = (select id from public.tickets where workspace_id = $1
        order by last_message_at desc, id desc offset 1500 limit 1) for update`,
      [workspace.id],
    );
    const cookie = (await admin.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    // What the server answered, should it answer before the test leaves (it must not).
    let answered = 'nothing';
    const answer = fetch(`${baseURL}/w/${slug}?index&view=all`, {
      method: 'POST',
      headers: { cookie, origin: baseURL!, 'x-forwarded-for': clientIp },
      body: new URLSearchParams({ intent: 'bulk', bulk_action: 'priority:high', all_matching: 'on' }),
      signal: left.signal,
    }).then(
      async (res) => {
        answered = `${res.status} ${(await res.text()).slice(0, 300)}`;
        return res;
      },
      (error: Error) => error,
    );
    await waitFor(
      () => `the second batch waiting on the held ticket (the server answered ${answered})`,
      // On a connection of its own: inside the holding transaction, pg_stat_activity stays as first read.
      async () =>
        (
          await superuserSql(
            `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%bulk_update_tickets%'`,
          )
        ).length,
    );
    // The first batch is made and committed on its own; the client leaves.
    expect(await high()).toBe(1000);
    left.abort();
    expect(await answer).toBeInstanceOf(Error);
    await db.query('commit');
  } finally {
    await db.end();
  }
  await waitFor('every ticket changed', async () => (await high()) === 2050, 60_000);
  const [history] = await superuserSql(
    `select count(*)::int as n from public.ticket_events where workspace_id = $1 and type = 'priority' and "to" = 'high'`,
    [workspace.id],
  );
  expect(history.n).toBe(2050);
});
