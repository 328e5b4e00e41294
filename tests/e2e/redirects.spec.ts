// Redirect targets a visitor can set (`redirectTo`, the sign-in link's `next`) end on this site
// however they are written (docs/decisions/017-redirect-targets.md). The e2e app is `npm start`'s server.ts.
import { codeFor, enterCode, env, expect, requestCode, signIn, test, uniqueEmail } from './fixtures.ts';

const HOSTILE = ['/.//evil.example/phish', '/%2e//evil.example/x', '/a/..//evil.example', '/%2F%2Fevil.example'];

test('the whole sign-in with redirectTo=/.//evil.example/phish ends on this site', async ({ page }) => {
  const email = uniqueEmail('redirect');
  await page.goto(`/login?redirectTo=${encodeURIComponent('/.//evil.example/phish')}`);
  await requestCode(page, email);
  await enterCode(page, await codeFor(email));
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  expect(new URL(page.url()).origin).toBe(new URL(env.baseURL).origin);
  expect(new URL(page.url()).pathname).toBe('/');
  await expect(page.getByRole('banner')).toContainText(email);
});

test('signed in, /login?redirectTo=<hostile> redirects home, never to another host', async ({ page }) => {
  await signIn(page);
  for (const target of ['%2F.%2F%2Fevil.example', ...HOSTILE.map(encodeURIComponent)]) {
    const response = await page.request.get(`/login?redirectTo=${target}`, { maxRedirects: 0 });
    expect(response.status(), target).toBe(302);
    expect(response.headers().location, target).toBe('/');
  }
});

test('a hostile redirectTo posted with the email is dropped: the code leads home', async ({ page }) => {
  const email = uniqueEmail('redirect');
  await page.goto('/login');
  // As a hand-made form would send it, past the page's own hidden field.
  await page.locator('input[name="redirectTo"]').evaluate((el: HTMLInputElement) => {
    el.value = '/.//evil.example/phish';
  });
  await requestCode(page, email);
  const verify = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/login/verify'));
  await enterCode(page, await codeFor(email));
  expect((await verify).headers().location).toBe('/');
});

test('the sign-in link keeps a safe `next` and drops a hostile one', async ({ request }) => {
  for (const [next, expected] of [['/account', '/account'], ...HOSTILE.map((target) => [target, ''])] as const) {
    const page = await request.get(`/auth/confirm?token_hash=abc&type=email&next=${encodeURIComponent(next)}`);
    const html = await page.text();
    expect(html, next).toContain(`name="next" value="${expected}"`);
  }
});
