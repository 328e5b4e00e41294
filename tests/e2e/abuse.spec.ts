import { startAppServer } from '../../scripts/lib/app-server.ts';
import { expect, mailCount, test, uniqueEmail } from './fixtures.ts';

test.describe('abuse limits', () => {
  test.use({ javaScriptEnabled: false });

  test('a filled honeypot sends no code', async ({ page }) => {
    const email = uniqueEmail('bot');
    await page.goto('/login');
    await page.getByLabel(/email/i).fill(email);
    await page.locator('input[name="company"]').evaluate((el: HTMLInputElement) => (el.value = 'Acme Bots Ltd'));
    await page.getByRole('button', { name: /code|continue|sign in/i }).click();
    await page.waitForLoadState();
    // Whatever the page says, no email went out (checked after a later real request arrives).
    const control = uniqueEmail('control');
    await page.goto('/login');
    await page.getByLabel(/email/i).fill(control);
    await page.getByRole('button', { name: /code|continue|sign in/i }).click();
    await expect.poll(() => mailCount(control)).toBe(1);
    expect(await mailCount(email)).toBe(0);
  });

  test('code requests per client IP are limited (too_many_attempts, 429)', async ({ page }) => {
    let last = 0;
    for (let i = 0; i < 11; i++) {
      await page.goto('/login');
      await page.getByLabel(/email/i).fill(uniqueEmail('flood'));
      const response = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: /code|continue|sign in/i }).click();
      last = (await response).status();
      if (last === 429) break;
    }
    expect(last).toBe(429);
    await expect(page.getByText('Too many attempts. Try again in a few minutes.')).toBeVisible();
  });

  test('another client IP is not affected by someone else hitting the limit', async ({ page, browser }) => {
    const other = await browser.newContext({
      baseURL: process.env.E2E_BASE_URL,
      javaScriptEnabled: false,
      extraHTTPHeaders: { 'X-Forwarded-For': '10.250.250.250' },
    });
    const otherPage = await other.newPage();
    const email = uniqueEmail('bystander');
    await otherPage.goto('/login');
    await otherPage.getByLabel(/email/i).fill(email);
    await otherPage.getByRole('button', { name: /code|continue|sign in/i }).click();
    await expect(otherPage).toHaveURL(/\/login\/verify/);
    await expect.poll(() => mailCount(email)).toBe(1);
    await other.close();
    void page;
  });
});

test('without a proxy, code requests are limited per socket address, whatever the headers claim', async () => {
  test.setTimeout(60_000);
  // A server of its own, not behind a proxy (TRUST_PROXY off), with fresh counters.
  const server = await startAppServer(process.env.E2E_BUILD_DIR!, {
    SUPABASE_URL: process.env.E2E_API_URL!,
    SUPABASE_ANON_KEY: process.env.E2E_ANON_KEY!,
    TRUST_PROXY: '0',
    WEB_CONCURRENCY: '1',
  });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const response = await fetch(`${server.baseURL}/login`, {
        method: 'POST',
        redirect: 'manual',
        // Every request claims another client: neither header may count.
        headers: {
          Origin: server.baseURL,
          'X-Forwarded-For': `198.51.100.${i}`,
          'X-Tend-Peer-Address': `203.0.113.${i}`,
        },
        body: new URLSearchParams({ email: uniqueEmail('direct') }),
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(statuses[0]));
    expect(statuses[0]).toBeGreaterThanOrEqual(300);
    expect(statuses[0]).toBeLessThan(400);
    expect(statuses[10]).toBe(429);
  } finally {
    await server.stop();
  }
});

test('an ended session shows session_expired on the login page', async ({ page, context }) => {
  const { hostname } = new URL(process.env.E2E_API_URL!);
  await context.addCookies([
    {
      name: `sb-${hostname.split('.')[0]}-auth-token`,
      value: 'base64-eyJub3QiOiJhIHNlc3Npb24ifQ',
      url: process.env.E2E_BASE_URL!,
    },
  ]);
  await page.goto('/account');
  await expect(page).toHaveURL(/\/login\?redirectTo=%2Faccount$/);
  await expect(page.getByText('Your session has ended. Sign in again.')).toBeVisible();
});

test('the request id on an error page is the one in the X-Request-Id header', async ({ page }) => {
  const response = await page.goto('/definitely/not/here');
  const id = response?.headers()['x-request-id'];
  expect(id).toBeTruthy();
  await expect(page.getByText(id!)).toBeVisible();
});
