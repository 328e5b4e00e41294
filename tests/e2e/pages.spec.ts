import { waitForMail } from '../../scripts/lib/mail.ts';
import { enterCode, env, expect, mailCount, requestCode, signIn, test, uniqueEmail } from './fixtures.ts';

test('the link in the email asks for a button press, then signs in and goes to `next`', async ({ page, request }) => {
  const email = uniqueEmail('link');
  await page.goto('/login');
  await requestCode(page, email);
  const mail = await waitForMail(env.mailUrl, email);
  const href = /href="([^"]*\/auth\/confirm[^"]*)"/.exec(mail.html)?.[1]?.replace(/&amp;/g, '&');
  expect(href).toBeTruthy();
  const link = new URL(href!);
  const confirmPath = `/auth/confirm${link.search}&next=${encodeURIComponent('/account')}`;
  // A mail scanner's GET must not spend the token.
  expect((await request.get(confirmPath)).status()).toBe(200);
  await page.context().clearCookies();
  await page.goto(confirmPath);
  await page.getByRole('button', { name: /sign in|confirm/i }).click();
  await page.waitForURL(/\/account$/);
  await expect(page.getByRole('main')).toContainText(email);
});

test('a used or garbage confirm link shows code_invalid', async ({ page }) => {
  await page.goto('/auth/confirm?token_hash=pkce_deadbeef&type=email');
  await page.getByRole('button', { name: /sign in|confirm/i }).click();
  await expect(
    page.getByText('That code is wrong or has expired. Check the latest email or send a new code.'),
  ).toBeVisible();
});

test('account: the display name is validated (1–60) and saved', async ({ page }) => {
  await signIn(page, { path: '/login?redirectTo=%2Faccount' });
  await page.waitForURL(/\/account$/);
  const name = page.getByLabel(/display name/i);
  await name.fill(' '.repeat(3));
  await name.evaluate((el) => el.closest('form')?.setAttribute('novalidate', ''));
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(
    page
      .getByText(/display name/i)
      .and(page.getByRole('alert'))
      .or(page.locator('[role=alert]', { hasText: /1.{0,6}60/ }))
      .first(),
  ).toBeVisible();
  await name.fill('Ada Lovelace');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('status').or(page.getByText(/saved/i)).first()).toBeVisible();
  await page.reload();
  await expect(page.getByLabel(/display name/i)).toHaveValue('Ada Lovelace');
});

test('an unknown page shows not_found with a request id and status 404', async ({ page }) => {
  const response = await page.goto('/no/such/page');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: "We couldn't find that." })).toBeVisible();
  await expect(page.getByText(/request id/i)).toBeVisible();
});

test('documents carry the CSP (nonce, strict-dynamic) and security headers', async ({ request }) => {
  const res = await request.get('/login');
  const h = res.headers();
  expect(h['content-security-policy']).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=_-]+' 'strict-dynamic'/);
  expect(h['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(h['content-security-policy']).toContain("form-action 'self'");
  expect(h['content-security-policy']).toContain(`connect-src 'self' ${new URL(process.env.E2E_API_URL!).origin}`);
  expect(h['referrer-policy']).toBe('strict-origin-when-cross-origin');
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['permissions-policy']).toBe('camera=(), microphone=(), geolocation=()');
  const nonce = /'nonce-([^']+)'/.exec(h['content-security-policy'])![1];
  const html = await res.text();
  for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toContain(`nonce="${nonce}"`);
});

test('a cross-site POST is refused with 403 forbidden and sends no code', async ({ request }) => {
  const email = uniqueEmail('csrf');
  // A browser's cross-site form post without an Origin Remix could compare: the app's check answers.
  const res = await request.post('/login', {
    form: { email },
    headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(403);
  expect(await res.text()).toContain("You don't have access to this.");
  // With a foreign Origin, Remix itself aborts before the action (an empty 500, which server.ts
  // answers as the 403 it is); either way nothing is sent.
  const foreign = await request.post('/login', {
    form: { email },
    headers: { Origin: 'https://evil.example' },
    maxRedirects: 0,
  });
  expect(foreign.status()).toBe(403);
  expect(await foreign.text()).toContain("You don't have access to this.");
  expect(await mailCount(email)).toBe(0);
});

test('GET /logout does not sign out; it goes home', async ({ page }) => {
  const email = await signIn(page);
  await page.goto('/logout');
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('banner')).toContainText(email);
});

test('redirectTo only takes same-app paths', async ({ page }) => {
  const email = uniqueEmail();
  await page.goto(`/login?redirectTo=${encodeURIComponent('//evil.example/x')}`);
  await requestCode(page, email);
  const { code } = await waitForMail(env.mailUrl, email);
  await enterCode(page, code);
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  expect(new URL(page.url()).origin).toBe(env.baseURL);
  expect(new URL(page.url()).pathname).toBe('/');
});
