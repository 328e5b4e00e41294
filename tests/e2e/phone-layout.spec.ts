// What a phone shows (issue 25 item 9, "At 375 px"): "Sign out" stays on one line beside a long
// address, at 375 and at 1366 px; the members page's controls (a role select, "Change role",
// "Remove"; the invitation's address, role and "Send invitation") are as tall as each other, sit on one
// line where they fit, and stack from one left edge on a phone. Screenshots at both widths.
import type { Locator, Page } from '@playwright/test';
import { expect, newContext, screenshots, serviceRest, signInByForm, test, uniqueEmail } from './fixtures.ts';

/** How many lines of text a control's label takes. */
const lines = (control: Locator) =>
  control.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    return tops.size;
  });

const box = async (l: Locator) => (await l.boundingBox())!;

async function expectSignOutOnOneLine(page: Page) {
  const signOut = page.getByRole('button', { name: 'Sign out' });
  await expect(signOut).toBeVisible();
  expect(await lines(signOut)).toBe(1);
}

/** A new workspace of the signed-in user (its admin); its slug. */
async function createWorkspace(page: Page, workerIndex: number) {
  const slug = `phone-${workerIndex}-${Date.now().toString(36)}`;
  await page.goto('/onboarding');
  await page.getByLabel('Workspace name').fill(slug);
  await page.getByLabel('Address').fill(slug);
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${slug}$`));
  return slug;
}

test('Sign out stays on one line and the members page lines up, at 1366 and 375 px', async ({ browser }, testInfo) => {
  test.setTimeout(90_000);
  const { context, page } = await newContext(browser);
  // A long address: the header's ellipsis gives way, not "Sign out".
  const email = uniqueEmail('a-rather-long-address-for-the-header');
  await signInByForm(page, email);
  const slug = await createWorkspace(page, testInfo.workerIndex);
  const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
  await serviceRest('memberships', {
    method: 'POST',
    body: JSON.stringify({
      workspace_id: workspace.id,
      user_id: 'b0000000-0000-4000-8000-000000000002',
      role: 'agent',
    }),
  });

  await page.goto(`/w/${slug}/settings/members`);
  await page.getByLabel('Email address').fill(uniqueEmail('invited'));
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByTestId('invitation')).toHaveCount(1);

  for (const width of [1366, 375]) {
    await page.setViewportSize({ width, height: 900 });
    await expectSignOutOnOneLine(page);
    const member = page.getByTestId('member').last();
    const select = member.getByRole('combobox');
    const change = member.getByRole('button', { name: 'Change role' });
    const remove = member.getByRole('link', { name: /^Remove/ });
    const [s, c, r] = [await box(select), await box(change), await box(remove)];
    // As tall as each other: the select is a control like the buttons.
    expect(Math.abs(s.height - c.height)).toBeLessThanOrEqual(1);
    expect(Math.abs(c.height - r.height)).toBeLessThanOrEqual(1);
    if (width === 1366) {
      // One line: the bottoms meet.
      expect(Math.abs(s.y + s.height - (c.y + c.height))).toBeLessThanOrEqual(1);
      expect(Math.abs(c.y + c.height - (r.y + r.height))).toBeLessThanOrEqual(1);
    } else {
      // Stacked: the select full width, the buttons under it from the same left edge, none past the screen.
      expect(Math.abs(s.x - c.x)).toBeLessThanOrEqual(1);
      expect(c.y).toBeGreaterThanOrEqual(s.y + s.height);
      expect(Math.abs(c.y - r.y)).toBeLessThanOrEqual(1);
      expect(Math.max(s.x + s.width, r.x + r.width)).toBeLessThanOrEqual(width);
    }
    const invite = page.getByRole('button', { name: 'Send invitation' });
    const [e, i] = [await box(page.getByLabel('Email address')), await box(invite)];
    expect(Math.abs(e.height - i.height)).toBeLessThanOrEqual(1);
  }
  await screenshots(page, 'members');
  await page.goto(`/w/${slug}`);
  await screenshots(page, 'inbox-header');
  await context.close();
});

test("a settings page shows an admin's name whole beside the workspace's links; an outsider's 404 has none of them", async ({
  browser,
}, testInfo) => {
  test.setTimeout(90_000);
  const admin = await newContext(browser);
  await signInByForm(admin.page, uniqueEmail('header'));
  const slug = await createWorkspace(admin.page, testInfo.workerIndex);
  await admin.page.goto('/account');
  await admin.page.getByLabel(/display name/i).fill('Ada Admin');
  await admin.page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(admin.page.getByRole('status').or(admin.page.getByText(/saved/i)).first()).toBeVisible();
  // A settings page is narrower than the inbox; the header's links are not, so the name is not cut to "A…".
  await admin.page.goto(`/w/${slug}/settings/rules`);
  const name = admin.page.getByRole('link', { name: 'Signed in as Ada Admin' });
  await expect(name).toBeVisible();
  expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  const header = admin.page.getByRole('navigation', { name: 'Account' });
  await expect(header.getByRole('link', { name: 'Reports' })).toBeVisible();
  await screenshots(admin.page, 'settings-header');

  // Someone outside the workspace gets the page a missing one gets: no shortcuts, no workspace links.
  const outsider = await newContext(browser);
  await signInByForm(outsider.page, uniqueEmail('outsider'));
  const response = await outsider.page.goto(`/w/${slug}/settings/rules`);
  expect(response?.status()).toBe(404);
  await expect(outsider.page.getByRole('heading', { name: "We couldn't find that." })).toBeVisible();
  await expect(outsider.page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await expect(outsider.page.getByRole('link', { name: 'Customers' })).toHaveCount(0);
  await expect(outsider.page.getByRole('link', { name: 'Help center' })).toHaveCount(0);
  await expect(outsider.page.getByText('Keyboard shortcuts')).toHaveCount(0);
  await admin.context.close();
  await outsider.context.close();
});
