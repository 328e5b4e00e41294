// Bulk changes end to end (docs/product.md#bulk-changes), with JavaScript and without: an agent checks rows
// (with JavaScript, shift-click selects a range and the bar counts them), assigns them in one "Apply"
// and reads what happened; "All … matching this view" changes every ticket of the view across pages
// (30 tickets, 25 a page), and a status the state machine refuses is skipped and said; two checked
// tickets merge into the older after a confirmation.
import { expect, expectNoViolations, newContext, newWorkspace, screenshots, serviceRest, test } from './fixtures.ts';

for (const javaScript of [true, false]) {
  test(`an agent changes many tickets at once (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }, testInfo) => {
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
      await screenshots(a, testInfo, 'inbox-selection');
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
    await screenshots(a, testInfo, `inbox-bulk-js-${javaScript}`);

    // Merge: checked tickets only, into the oldest, after a confirmation that names them.
    await a.goto(`/w/${slug}?view=all`);
    const [first, second] = [rows.nth(0).getByRole('checkbox'), rows.nth(1).getByRole('checkbox')];
    await first.check();
    await second.check();
    await a.getByLabel('Change the selected', { exact: true }).selectOption({ label: 'Merge into the oldest' });
    await a.getByRole('button', { name: 'Update tickets' }).click();
    const confirm = a.getByRole('form', { name: 'Confirm the merge' });
    await expect(confirm).toContainText(/^Merge #\d+ into #\d+ Bulk request \d+\?/);
    await screenshots(a, testInfo, `inbox-merge-confirm-js-${javaScript}`);
    await confirm.getByRole('button', { name: 'Merge 2 tickets' }).click();
    await expect(a.getByTestId('bulk-done')).toHaveText('1 updated');
  });
}
