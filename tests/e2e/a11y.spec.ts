import { expect, expectNoViolations, newWorkspace, requestCode, test, uniqueEmail } from './fixtures.ts';

test('/login has no axe violations', async ({ page }) => {
  await page.goto('/login');
  await expectNoViolations(page);
});

test('/login with a field error has no axe violations', async ({ page }) => {
  await page.goto('/login');
  await page.getByLabel(/email/i).fill('nope');
  await page.getByLabel(/email/i).evaluate((el) => el.closest('form')?.setAttribute('novalidate', ''));
  await page.getByRole('button', { name: /code|continue|sign in/i }).click();
  await expect(page.getByText('Enter a valid email address.')).toBeVisible();
  await expectNoViolations(page);
});

test('/login/verify has no axe violations', async ({ page }) => {
  await page.goto('/login');
  await requestCode(page, uniqueEmail('a11y'));
  await expect(page.getByLabel(/code/i).first()).toBeVisible();
  await expectNoViolations(page);
});

test('/auth/confirm has no axe violations', async ({ page }) => {
  await page.goto('/auth/confirm?token_hash=abc&type=email');
  await expectNoViolations(page);
});

test('the 404 page has no axe violations', async ({ page }) => {
  await page.goto('/missing-page');
  await expectNoViolations(page);
});

test('the reports page has no axe violations', async ({ page }) => {
  // A long page (per agent, SLA, satisfaction, help center): axe takes its time on a loaded machine.
  test.setTimeout(90_000);
  const slug = await newWorkspace(page, { label: 'a11y' });
  await page.goto(`/w/${slug}/reports?range=7`);
  await expect(page.getByRole('img', { name: /Tickets created and solved per day/ })).toBeVisible();
  // The tables folded under "The numbers…" too.
  for (const summary of await page.locator('summary').all()) await summary.click();
  await expectNoViolations(page);
});
