// The sign-in limits hold for the whole server, not per worker (docs/decisions/009-production-server.md):
// every attempt here comes on a connection of its own, and node:cluster hands each new connection
// to the next worker.
import { request, type Page } from '@playwright/test';
import { codeFor, enterCode, env, expect, requestCode, sentEarlier, test, uniqueEmail } from './fixtures.ts';

/** A code sent to `email` from this page: the code, a wrong one, and the browser's cookies for other clients. */
async function pendingSignIn(page: Page, email: string) {
  await page.goto('/login');
  await requestCode(page, email);
  const code = await codeFor(email);
  const wrong = code === '000000' ? '111111' : '000000';
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  return { code, wrong, cookie };
}

test('five wrong codes spread over the workers refuse the sixth attempt', async ({ page, clientIp }) => {
  const email = uniqueEmail('workers');
  const { code, wrong, cookie } = await pendingSignIn(page, email);

  const attempt = async (value: string) => {
    const client = await request.newContext({
      baseURL: env.baseURL,
      extraHTTPHeaders: { 'X-Forwarded-For': clientIp, origin: env.baseURL, cookie },
    });
    try {
      const response = await client.post('/login/verify', { form: { intent: 'verify', code: value }, maxRedirects: 0 });
      return response.status();
    } finally {
      await client.dispose();
    }
  };
  for (let i = 0; i < 5; i++) expect(await attempt(wrong)).toBe(400);
  expect(await attempt(code)).toBe(429);
});

test('60 parallel wrong codes for one address, from 60 addresses: at most the ceiling reach Auth', async ({ page }) => {
  const email = uniqueEmail('race');
  const { code, wrong, cookie } = await pendingSignIn(page, email);
  const prefix = 1 + Math.floor(Math.random() * 200);
  const statuses = await Promise.all(
    Array.from({ length: 60 }, async (_, i) => {
      const response = await fetch(new URL('/login/verify', env.baseURL), {
        method: 'POST',
        redirect: 'manual',
        headers: { origin: env.baseURL, cookie, 'X-Forwarded-For': `10.${prefix}.${i}.9` },
        body: new URLSearchParams({ intent: 'verify', code: wrong }),
      });
      return response.status;
    }),
  );
  // 400: Auth was asked and said "wrong"; 429: refused before Auth was asked.
  expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(5);
  expect(statuses.filter((s) => s !== 400 && s !== 429)).toEqual([]);
  // The ceiling spent this code: even the right one is refused now.
  const right = await fetch(new URL('/login/verify', env.baseURL), {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: env.baseURL, cookie, 'X-Forwarded-For': `10.${prefix}.250.9` },
    body: new URLSearchParams({ intent: 'verify', code }),
  });
  expect(right.status).toBe(429);
});

test('after the ceiling a new code sent to the mailbox works: the owner is not locked out', async ({ page }) => {
  test.setTimeout(60_000); // two sign-ins and six refused attempts
  const email = uniqueEmail('owner');
  await page.clock.install(); // the page's countdown, moved on below with Auth's clock
  const { code, wrong, cookie } = await pendingSignIn(page, email);
  // Someone else, elsewhere, burns the code.
  for (let i = 0; i < 6; i++) {
    await fetch(new URL('/login/verify', env.baseURL), {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: env.baseURL, cookie, 'X-Forwarded-For': `10.251.${i}.7` },
      body: new URLSearchParams({ intent: 'verify', code: wrong }),
    });
  }
  await enterCode(page, code);
  await expect(
    page.getByText('That code was entered wrong too many times and no longer works. Send a new code.'),
  ).toBeVisible();
  // The owner asks for a new code once Auth's 60-second cooldown allows it (time moved on for Auth
  // and the page, not waited out), and signs in with it.
  const resend = page.getByRole('button', { name: 'Send a new code' });
  await expect(resend).toBeDisabled();
  await sentEarlier(email, 61);
  await page.clock.fastForward(61_000);
  await expect(resend).toBeEnabled();
  await resend.click();
  await expect(page.getByText('A new code is on its way.')).toBeVisible();
  await enterCode(page, await codeFor(email, 2));
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  await expect(page.getByRole('banner')).toContainText(email);
});
