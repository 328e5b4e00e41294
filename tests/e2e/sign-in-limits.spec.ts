// The sign-in limits hold for the whole server, not per worker (docs/decisions/009-production-server.md):
// every attempt here comes on a connection of its own, and node:cluster hands each new connection
// to the next worker.
import { request } from '@playwright/test';
import { codeFor, env, expect, requestCode, test, uniqueEmail } from './fixtures.ts';

test('five wrong codes spread over the workers refuse the sixth attempt', async ({ page, clientIp }) => {
  const email = uniqueEmail('workers');
  await page.goto('/login');
  await requestCode(page, email);
  const code = await codeFor(email);
  const wrong = code === '000000' ? '111111' : '000000';
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');

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
