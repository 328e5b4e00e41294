// Tags end to end (docs/product.md#tags), with JavaScript and without: an agent tags tickets from
// the sidebar (a new tag is created; when the admin turns that off, only existing tags), the inbox
// shows them on rows and filters by ?tag= and by tag: in the search, the history says who did it, the
// CSV export has them, and the admin renames, merges and deletes tags at /w/:slug/settings/tags.
import type { Page } from '@playwright/test';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  serviceRest,
  signedInContext,
  test,
  uniqueEmail,
  userId,
} from './fixtures.ts';

async function openRequest(page: Page, slug: string, subject: string) {
  await page.goto(`/support/${slug}/new`);
  await page.getByLabel('Subject').fill(subject);
  await page.getByLabel('Message').fill('Please look into it.');
  await page.getByRole('button', { name: 'Submit request' }).click();
  await page.waitForURL(/\/requests\/\d+$/);
}

async function addTag(page: Page, name: string) {
  await page.getByLabel('Add a tag').fill(name);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
}

for (const javaScript of [true, false]) {
  test(`agents tag tickets, the inbox filters by tag, admins manage tags (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(300_000);
    const admin = await newContext(browser, { javaScript });
    const slug = await newWorkspace(admin.page, { label: 'tags' });
    const agent = await signedInContext(browser, uniqueEmail('tagagent'), { javaScript });
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    await serviceRest('memberships', {
      method: 'POST',
      body: JSON.stringify({ workspace_id: workspace.id, user_id: await userId(agent.page), role: 'agent' }),
    });
    await openRequest(admin.page, slug, 'Charged twice');
    await openRequest(admin.page, slug, 'Card declined');
    await openRequest(admin.page, slug, 'Where is my parcel');

    // The agent tags #1 billing and urgent-ish, #2 billing; a bad name is refused at the field, kept.
    const a = agent.page;
    await a.goto(`/w/${slug}/tickets/1`);
    await addTag(a, 'two words');
    await expect(a.locator('#tag-error')).toHaveText(
      'A tag is 1 to 40 lower-case letters, digits, - or _, starting with a letter or digit.',
    );
    await expect(a.getByLabel('Add a tag')).toHaveValue('two words');
    await addTag(a, ' Billing ');
    const tags = a.locator('form.hd-tags');
    await expect(tags.locator('[data-tag]')).toHaveText(['billing×']);
    await addTag(a, 'refund');
    await expect(tags.locator('[data-tag]')).toHaveText(['billing×', 'refund×']);
    await expect(a.locator('.hd-history')).toContainText('added the tag refund');
    if (javaScript) {
      await expectNoViolations(a);
      // The field suggests the workspace's tags, fetched on its first focus; t puts the cursor there.
      await a.locator('body').press('t');
      await expect(a.getByLabel('Add a tag')).toBeFocused();
      await expect(a.locator('#tag-names option')).toHaveCount(2);
    }
    await screenshots(a, `ticket-tags-js-${javaScript}`);
    await a.goto(`/w/${slug}/tickets/2`);
    await addTag(a, 'billing');
    await expect(a.locator('form.hd-tags').locator('[data-tag]')).toHaveText(['billing×']);

    // The inbox: tags on rows; ?tag= and tag: narrow the list; a tag on a row is a link that narrows.
    await a.goto(`/w/${slug}?view=all`);
    const rows = a.getByTestId('inbox-row');
    await expect(rows).toHaveCount(3);
    await expect(rows.filter({ hasText: 'Charged twice' }).locator('[data-tag]')).toHaveText(['billing', 'refund']);
    await rows.filter({ hasText: 'Charged twice' }).getByRole('link', { name: 'refund' }).click();
    await expect(a).toHaveURL(/tag=refund/);
    await expect(rows).toHaveCount(1);
    await expect(a.getByTestId('tag-filter')).toContainText('refund');
    await a.goto(`/w/${slug}?view=all&tag=billing`);
    await expect(rows).toHaveCount(2);
    await a.goto(`/w/${slug}?view=all&tag=billing&tag=refund`);
    await expect(rows).toHaveCount(1);
    await a.getByRole('link', { name: 'Stop filtering by refund' }).click();
    await expect(rows).toHaveCount(2);
    await a.goto(`/w/${slug}?view=all`);
    await a.getByLabel('Search').fill('declined tag:billing');
    await a.getByRole('search').getByRole('button', { name: 'Apply' }).click();
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText('Card declined');
    if (javaScript) await expectNoViolations(a);
    await a.goto(`/w/${slug}?view=all`);
    await screenshots(a, `inbox-tags-js-${javaScript}`);

    // Removing a tag: gone from the ticket, and the history says so.
    await a.goto(`/w/${slug}/tickets/1`);
    await a.getByRole('button', { name: 'Remove tag refund' }).click();
    await expect(a.locator('form.hd-tags').locator('[data-tag]')).toHaveText(['billing×']);
    await expect(a.locator('.hd-history')).toContainText('removed the tag refund');

    // The admin turns creating off: the agent can still use billing, not make a new one.
    const ad = admin.page;
    await ad.goto(`/w/${slug}/settings/tags`);
    await expect(ad.getByRole('heading', { level: 1 })).toHaveText('Tags');
    await ad.getByLabel(/Agents may create new tags/).uncheck();
    await ad.getByRole('button', { name: 'Save setting' }).click();
    await expect(ad.getByRole('status')).toHaveText('Setting saved.');
    await a.goto(`/w/${slug}/tickets/3`);
    await addTag(a, 'shipping');
    await expect(a.locator('#tag-error')).toHaveText(
      'Only admins can create tags in this workspace. Choose an existing tag.',
    );
    await expect(a.getByLabel('Add a tag')).toHaveValue('shipping');
    await addTag(a, 'billing');
    await expect(a.locator('form.hd-tags').locator('[data-tag]')).toHaveText(['billing×']);

    // The admin: counts, a rename refused onto an existing name, a rename, a merge, a delete.
    await ad.goto(`/w/${slug}/settings/tags`);
    const tagRows = ad.getByTestId('tag-row');
    await expect(tagRows).toHaveCount(2);
    const billing = tagRows.filter({ has: ad.locator('[data-tag="billing"]') });
    await expect(billing).toContainText('3 tickets');
    await billing.getByLabel('Name').fill('refund');
    await billing.getByRole('button', { name: 'Save billing' }).click();
    await expect(billing.locator('.error-list')).toHaveText('That tag exists already. Merge the two instead.');
    await expect(billing.getByLabel('Name')).toHaveValue('refund');
    if (javaScript) await expectNoViolations(ad);
    await billing.getByLabel('Name').fill('invoices');
    await billing.getByLabel('Colour').selectOption('blue');
    await billing.getByRole('button', { name: 'Save billing' }).click();
    await expect(ad.getByRole('status')).toHaveText('Tag saved.');
    await expect(tagRows.locator('[data-tag]')).toHaveText(['invoices', 'refund']);
    const refund = tagRows.filter({ has: ad.locator('[data-tag="refund"]') });
    await refund.getByText('Merge refund…').click();
    await refund.getByLabel('Merge “refund” into').selectOption({ label: 'invoices' });
    await refund.getByRole('button', { name: 'Merge refund' }).click();
    await expect(ad.getByRole('status')).toHaveText('Tags merged.');
    await expect(tagRows).toHaveCount(1);
    await expect(tagRows).toContainText('3 tickets');
    await screenshots(ad, `settings-tags-js-${javaScript}`);

    // The CSV export has the tags; the report counts them.
    const csv = await (await ad.request.get(`/w/${slug}/export.csv?view=all&tag=invoices`)).text();
    expect(csv.split('\r\n')[0]).toBe('\uFEFFNumber,Subject,Status,Priority,Requester,Assignee,Tags,Last activity');
    expect(csv.split('\r\n').filter((l) => l.includes(',invoices,'))).toHaveLength(3);
    await ad.goto(`/w/${slug}/reports`);
    await expect(ad.getByTestId('by-tag').locator('tbody tr')).toHaveText([/invoices\s*3\s*0/]);

    await ad.goto(`/w/${slug}/settings/tags`);
    await tagRows.getByText('Delete invoices').click();
    await tagRows.getByRole('button', { name: 'Delete for good invoices' }).click();
    await expect(ad.getByRole('status')).toHaveText('Tag deleted.');
    await expect(ad.getByText('No tags yet.')).toBeVisible();
    await a.goto(`/w/${slug}?view=all`);
    await expect(a.getByTestId('inbox-row').locator('[data-tag]')).toHaveCount(0);
  });
}
