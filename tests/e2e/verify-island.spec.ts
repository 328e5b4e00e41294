// /login/verify is an island page (docs/decisions/006-javascript-budget.md): no Remix runtime,
// one small module that hydrates the code form and the resend options with React.
import type { Page } from '@playwright/test';
import { codeFor, expect, requestCode, test, uniqueEmail } from './fixtures.ts';

/** Console errors and warnings and uncaught errors (a hydration mismatch is one), from now on. */
function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  return problems;
}

test('from /login the code step is a document of its own, without Remix in the browser', async ({ page }) => {
  await page.goto('/login');
  await requestCode(page, uniqueEmail('island'));
  // Remix's client followed the redirect with a document load (X-Remix-Reload-Document).
  await expect(page.locator('.otp__slot')).toHaveCount(6);
  expect(
    await page.evaluate(() => ['__remixContext', '__remixManifest', '__remixRouter'].filter((name) => name in window)),
  ).toEqual([]);
});

test('the verify page loads only its island module, logs nothing, hydrates the six boxes and submits at six digits', async ({
  page,
}) => {
  const email = uniqueEmail('island');
  await page.goto('/login');
  await requestCode(page, email);

  const problems = collectProblems(page);
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  const response = await page.reload();
  await expect(page.locator('.otp__slot')).toHaveCount(6);
  await expect(page.locator('input[data-input-otp]')).toBeFocused();
  await expect(page.getByTestId('resend-cooldown')).toBeVisible();

  expect(scripts).toEqual([expect.stringMatching(/^\/build\/islands\/verify-[A-Z0-9]+\.js$/)]);
  // Every script tag carries this document's nonce (the CSP allows nothing else).
  const nonce = /'nonce-([^']+)'/.exec(response!.headers()['content-security-policy'])![1];
  const tags = (await response!.text()).match(/<script\b[^>]*>/g) ?? [];
  expect(tags.length).toBeGreaterThan(0);
  for (const tag of tags) expect(tag).toContain(`nonce="${nonce}"`);

  await page.locator('input[data-input-otp]').fill(await codeFor(email));
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  await expect(page.getByRole('banner')).toContainText(email);
  expect(problems).toEqual([]);
});

test('digits typed before the island arrives are carried over to the boxes and submitted', async ({ page }) => {
  const email = uniqueEmail('island');
  await page.goto('/login');
  // Hold the island back until the code is typed into the plain field.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/build/islands/**', async (route) => {
    await held;
    await route.continue();
  });
  await requestCode(page, email);
  const plain = page.getByLabel('Sign-in code');
  await plain.fill(await codeFor(email));
  await expect(page.locator('input[data-input-otp]')).toHaveCount(0);
  release();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  await expect(page.getByRole('banner')).toContainText(email);
});

test('the resend cooldown counts down with "Send a new code" disabled', async ({ page }) => {
  await page.clock.install(); // moved on below, not waited for
  await page.goto('/login');
  await requestCode(page, uniqueEmail('island'));
  const cooldown = page.getByTestId('resend-cooldown');
  const seconds = async () => Number(/(\d+) seconds/.exec((await cooldown.textContent()) ?? '')?.[1]);
  await expect(page.getByRole('button', { name: 'Send a new code' })).toBeDisabled();
  const first = await seconds();
  expect(first).toBeGreaterThan(50);
  await page.clock.fastForward(2_000);
  await expect.poll(seconds).toBeLessThan(first);
  await expect(page.getByRole('button', { name: 'Send a new code' })).toBeDisabled();
});
