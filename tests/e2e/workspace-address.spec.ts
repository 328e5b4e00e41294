// A workspace's address (slug) after a rename (docs/product.md §2, issue 25 item 9): every path under
// the old address leads to the same page at the new one, the redirect is one no browser keeps (a
// workspace may take its old address back), and an address once used is never another workspace's.
import type { Page } from '@playwright/test';
import { expect, newContext, newWorkspace, test } from './fixtures.ts';

async function changeAddress(page: Page, from: string, to: string) {
  await page.goto(`/w/${from}/settings`);
  await page.getByLabel('Address', { exact: true }).fill(to);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${to}/settings\\?done=saved$`));
}

test('old deep links follow a rename, and renaming back never loops', async ({ browser }) => {
  test.setTimeout(90_000);
  const { context, page } = await newContext(browser);
  const slug = await newWorkspace(page, { label: 'address' });
  // A request of the admin's own, so both the portal and the inbox have a ticket page.
  await page.goto(`/support/${slug}/new`);
  await page.getByLabel('Subject').fill('An old link');
  await page.getByLabel('Message').fill('Does it still work after the rename?');
  await page.getByRole('button', { name: 'Submit request' }).click();
  await expect(page).toHaveURL(new RegExp(`/support/${slug}/requests/1$`));

  const moved = `${slug}-tmp`;
  await changeAddress(page, slug, moved);

  // Every page under the old address, as an earlier email links it, opens at the new one.
  for (const [old, now] of [
    [`/support/${slug}`, `/support/${moved}`],
    [`/support/${slug}/requests/1?from=email`, `/support/${moved}/requests/1?from=email`],
    [`/w/${slug}/tickets/1`, `/w/${moved}/tickets/1`],
    [`/w/${slug}?view=all`, `/w/${moved}?view=all`],
  ]) {
    const answer = await page.request.get(old, { maxRedirects: 0 });
    expect(answer.status(), old).toBe(302);
    expect(answer.headers()['cache-control'], old).toContain('no-store');
    expect(answer.headers().location, old).toBe(now);
    await page.goto(old);
    await expect(page, old).toHaveURL(new RegExp(`${now.replace(/[?]/g, '\\?')}$`));
  }
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Inbox');
  // A ticket that never was stays a 404 at either address.
  expect((await page.request.get(`/w/${slug}/tickets/99`)).status()).toBe(404);

  // Back to the first address: this browser, which followed the redirect, opens it again.
  await changeAddress(page, moved, slug);
  await page.goto(`/support/${slug}/requests/1`);
  await expect(page).toHaveURL(new RegExp(`/support/${slug}/requests/1$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('An old link');
  await page.goto(`/w/${slug}/tickets/1`);
  await expect(page).toHaveURL(new RegExp(`/w/${slug}/tickets/1$`));
  await context.close();

  // Another admin may not take the address the workspace had.
  const { context: other, page: stranger } = await newContext(browser);
  await newWorkspace(stranger, { label: 'taker' });
  await stranger.goto('/onboarding');
  await stranger.getByLabel('Workspace name').fill('Taker');
  await stranger.getByLabel('Address').fill(moved);
  await stranger.getByRole('button', { name: 'Create workspace' }).click();
  await expect(stranger.getByText('That address is taken.')).toBeVisible();
  await other.close();
});
