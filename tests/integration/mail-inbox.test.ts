// The local mail inbox as a developer sees it, in a real Chromium.
import { chromium, type Browser } from '@playwright/test';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMail, type RunningMail } from '../../supabase/local/mail/index.ts';
import { chromiumLaunchOptions } from '../support/chromium.ts';

describe('mail inbox in Chromium', () => {
  let dir: string;
  let mail: RunningMail;
  let browser: Browser;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tend-mail-ui-'));
    chmodSync(dir, 0o755);
    mail = await startMail({ port: 0, dir, log: () => undefined });
    browser = await chromium.launch(chromiumLaunchOptions());
  });
  afterAll(async () => {
    await browser?.close();
    await mail?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the email with its code and opens it', async () => {
    await mail.mailer.send({
      from: { name: 'Admin', email: 'admin@email.com' },
      to: [{ email: 'customer@example.test' }],
      subject: 'Your Tend sign-in code',
      text: 'Enter 482913 to sign in.',
      html: '<p>Enter <b>482913</b> to sign in.</p>',
    });
    const page = await browser.newPage();
    await page.goto(mail.url);
    await expect.poll(() => page.title()).toBe('Tend local mail');
    const row = page.getByRole('row', { name: /customer@example\.test/ });
    await expect.poll(() => row.textContent()).toContain('482913');
    await page.screenshot({ path: path.join(dir, 'inbox.png'), fullPage: true });
    await page.getByRole('link', { name: 'Your Tend sign-in code' }).click();
    await expect.poll(() => page.locator('pre').textContent()).toBe('Enter 482913 to sign in.');
    const frame = page.frameLocator('iframe[title="HTML body"]');
    await expect.poll(() => frame.locator('b').textContent()).toBe('482913');
    await page.getByRole('button', { name: 'Delete all' }).click();
    await expect.poll(() => page.locator('main').textContent()).toContain('No mail yet');
  });
});
