// The local mail inbox as a developer sees it, in a real headless Chromium.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMail, type RunningMail } from '@tend/supabase-local';
import { launchChromium } from '../support/chromium.ts';

describe('mail inbox in Chromium', () => {
  let dir: string;
  let mail: RunningMail;
  let browser: Browser;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tend-mail-ui-'));
    mail = await startMail({ port: 0, dir, log: () => undefined });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await mail?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the recipient, subject and code, opens the email, and deletes all', async () => {
    await mail.mailer.send({
      from: { name: 'Admin', email: 'admin@email.com' },
      to: [{ email: 'customer@example.test' }],
      subject: 'Your Tend sign-in code',
      text: 'Enter 482913 to sign in, or open http://localhost:3000/auth/confirm?token_hash=abc&type=email',
      html: '<p>Enter <b>482913</b> to sign in.</p><script>document.body.textContent = "scripts ran"</script>',
    });
    const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
    await page.goto(mail.url);
    expect(await page.title()).toBe('Tend local mail');
    await page.getByText('customer@example.test').waitFor({ state: 'visible' });
    await page.getByRole('link', { name: 'Your Tend sign-in code' }).waitFor({ state: 'visible' });
    const row = page.getByRole('row', { name: /customer@example\.test/ });
    expect(await row.locator('.code').textContent()).toBe('482913');

    const screenshot = path.join(os.tmpdir(), 'tend-mail-inbox.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(1000);

    await page.getByRole('link', { name: 'Your Tend sign-in code' }).click();
    await page.waitForURL(/\/view\//);
    expect(await page.locator('pre').textContent()).toContain('Enter 482913 to sign in');
    expect(await page.locator('pre a').getAttribute('href')).toBe(
      'http://localhost:3000/auth/confirm?token_hash=abc&type=email',
    );
    const frame = page.frameLocator('iframe[title="HTML body"]');
    expect(await frame.locator('b').textContent()).toBe('482913'); // and the email's script did not run
    await page.screenshot({ path: path.join(os.tmpdir(), 'tend-mail-message.png'), fullPage: true });

    await page.getByRole('button', { name: 'Delete all' }).click();
    await page.getByText('No mail yet').waitFor({ state: 'visible' });
    await page.close();
  });
});
