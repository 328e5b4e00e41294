// A workspace's emails, end to end (issue 29 item 1; docs/decisions/046-sender-and-branding.md): an
// admin sets the sender, accent, footer and logo at /w/:slug/settings/email with a live preview (and
// the Preview button without JavaScript), is warned until the domain is verified, verifies it; the
// customer's email in the catcher then comes from the workspace's address, with its logo, colour and
// footer, and the conversation so far. Fresh accounts and a workspace of their own.
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from '@playwright/test';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { env, expect, expectNoViolations, screenshots, signedInContext, test, uniqueEmail } from './fixtures.ts';

// A 2×2 PNG: a logo as the bucket and the type check see it.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

/** Posts a customer's email to inbound-email as Postmark would: a new request in the workspace. */
const inbound = (mail: Record<string, unknown>) =>
  fetch(`${process.env.E2E_API_URL}/functions/v1/inbound-email`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Basic ${btoa(`postmark:${process.env.E2E_INBOUND_EMAIL_SECRET}`)}`,
    },
    body: JSON.stringify({ MessageID: randomUUID(), HtmlBody: '', Headers: [], Attachments: [], ...mail }),
  });

interface Mail {
  From: { Name: string; Address: string };
  Text: string;
  HTML: string;
}

async function mailWith(email: string, text: string): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(
      async () => {
        for (const { ID } of await messagesTo(env.mailUrl, email, { notifications: true })) {
          const mail = await (await fetch(`${env.mailUrl}/api/v1/message/${ID}`)).json();
          if (mail.Text.includes(text)) return (found = mail) && true;
        }
        return false;
      },
      { timeout: 15_000, message: `an email to ${email} with "${text}"` },
    )
    .toBe(true);
  return found!;
}

const frame = (page: Page) => page.frameLocator('iframe[title="Preview of a customer’s email"]');

test.describe('email settings', () => {
  test.describe.configure({ mode: 'serial' });
  const tag = randomUUID().slice(0, 8);
  const slug = `brand-${tag}`;
  const adminEmail = uniqueEmail('brand-ada');
  let admin: { context: BrowserContext; page: Page };

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    admin = await signedInContext(browser, adminEmail);
    await admin.page.goto('/onboarding');
    await admin.page.getByLabel('Workspace name').fill(`Brand ${tag}`);
    await admin.page.getByLabel('Address').fill(slug);
    await admin.page.getByRole('button', { name: 'Create workspace' }).click();
    await admin.page.waitForURL(`/w/${slug}`);
  });
  test.afterAll(async () => {
    await admin?.context.close();
  });

  test('an admin sets the sender, colour, footer and logo with a live preview, then verifies the domain', async () => {
    test.setTimeout(60_000);
    const page = admin.page;
    await page.goto(`/w/${slug}/settings/email`);
    await expect(page.getByRole('link', { name: 'Email', exact: true })).toHaveAttribute('aria-current', 'page');
    // Before anything is set the preview shows the workspace's own name.
    await expect(frame(page).getByText(`Brand ${tag}`).first()).toBeVisible();

    await page.getByLabel('Sender name').fill(`Brand ${tag} Support`);
    await page.getByLabel('Footer').fill('Brand Ltd · 1 Main Street · Open 9–5');
    // Live: the preview follows what is typed, before saving.
    await expect(frame(page).getByText('Brand Ltd · 1 Main Street · Open 9–5')).toBeVisible();
    await expect(frame(page).getByText(`Brand ${tag} Support`).first()).toBeVisible();

    await page.getByLabel('Sender address').fill(`help@${slug}.example`);
    await page.getByLabel('Accent colour').fill('#aa3300');
    await page.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByRole('status')).toHaveText('Saved.');
    await expect(page.getByTestId('sender-warning')).toContainText(`until ${slug}.example is verified`);
    // The saved logo, shown on the page and in the preview, from the public bucket.
    const logo = page.getByRole('img', { name: `The current logo of Brand ${tag}` });
    await expect(logo).toBeVisible();
    const logoSrc = (await logo.getAttribute('src'))!;
    expect(logoSrc).toMatch(/\/storage\/v1\/object\/public\/branding\/[0-9a-f-]{36}\/[0-9a-f-]{36}\.png$/);
    expect((await fetch(logoSrc)).headers.get('content-type')).toBe('image/png');
    await expect(frame(page).getByRole('img', { name: `Brand ${tag} Support` })).toHaveAttribute('src', logoSrc);
    // The records to publish, with the workspace's token.
    await expect(page.getByRole('cell', { name: `_tend.${slug}.example` })).toBeVisible();
    await expect(page.getByRole('cell', { name: /^tend-verification=[0-9a-f]{32}$/ })).toBeVisible();
    // The preview is a sandboxed frame without scripts, where axe can't run: the settings page around it is checked.
    await expectNoViolations(page, { exclude: 'iframe[title="Preview of a customer’s email"]' });
    await screenshots(page, 'email-settings');

    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('status')).toHaveText('Verified: emails now come from your address.');
    await expect(page.getByTestId('sender-warning')).toHaveCount(0);
    await expect(page.getByText(`Verified: emails come from help@${slug}.example.`)).toBeVisible();
  });

  test('without JavaScript the Preview button shows what was typed, unsaved', async ({ browser }) => {
    test.setTimeout(60_000);
    // The admin's session in a browser that runs no script (a second code would wait out the cooldown).
    const context = await browser.newContext({
      baseURL: env.baseURL,
      javaScriptEnabled: false,
      storageState: await admin.context.storageState(),
    });
    const page = await context.newPage();
    await page.goto(`/w/${slug}/settings/email`);
    await page.getByLabel('Footer').fill('A footer not saved yet');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect(frame(page).getByText('A footer not saved yet')).toBeVisible();
    await expect(page.getByLabel('Footer')).toHaveValue('A footer not saved yet');
    // Bad input: the field says why, the rest kept, nothing saved.
    await page.getByLabel('Sender name').fill('Eve <eve@evil.example>');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('Enter a sender name of up to 80 characters, without quotes or < >.')).toBeVisible();
    await expect(page.getByLabel('Footer')).toHaveValue('A footer not saved yet');
    await page.goto(`/w/${slug}/settings/email`);
    await expect(page.getByLabel('Sender name')).toHaveValue(`Brand ${tag} Support`);
    await context.close();
  });

  test('the customer’s email comes from the workspace’s address, branded, with the conversation so far', async () => {
    test.setTimeout(60_000);
    const customer = uniqueEmail('brand-casey');
    const opened = await inbound({
      From: customer,
      FromFull: { Email: customer, Name: 'Casey', MailboxHash: '' },
      To: `${slug}@tend.localhost`,
      ToFull: [{ Email: `${slug}@tend.localhost`, Name: '', MailboxHash: '' }],
      Subject: `Printer paused ${tag}`,
      TextBody: 'It says paused and prints nothing.',
    });
    const { number } = await opened.json();
    const page = admin.page;
    // The admin's signature, set once in /account, starts every draft.
    await page.goto('/account#signature');
    await page.getByLabel('Your signature').fill(`Ada\nBrand ${tag} Support`);
    await page.getByRole('button', { name: 'Save signature' }).click();
    await expect(page.locator('#signature').getByRole('status')).toHaveText('Saved.');
    await page.goto(`/w/${slug}/tickets/${number}`);
    const form = page.locator('form.hd-composer');
    const draft = form.getByLabel('Message', { exact: true });
    await expect(draft).toHaveValue(`\n\nAda\nBrand ${tag} Support`);
    // Changed for this reply: the text above it, the signature's last line dropped.
    await draft.fill(`I resumed the queue. Try again?\n\nAda`);
    await form.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.locator('.hd-message').getByText('I resumed the queue. Try again?')).toBeVisible();

    const mail = await mailWith(customer, 'I resumed the queue.');
    expect(mail.From).toEqual({ Name: `Brand ${tag} Support`, Address: `help@${slug}.example` });
    expect(mail.HTML).toContain('#aa3300');
    expect(mail.HTML).toContain('Brand Ltd · 1 Main Street · Open 9–5');
    expect(mail.HTML).toMatch(/src="[^"]+\/storage\/v1\/object\/public\/branding\/[^"]+\.png"/);
    expect(mail.Text).toContain('> It says paused and prints nothing.');
    expect(mail.Text).toContain('I resumed the queue. Try again?\n\nAda\n');

    // The email as a mail client shows it, wide and narrow.
    const reader = await page.context().newPage();
    await reader.setContent(mail.HTML);
    await expect(reader.getByText('I resumed the queue. Try again?')).toBeVisible();
    await expect(reader.getByText('It says paused and prints nothing.')).toBeVisible();
    await screenshots(reader, 'email-reply');
    await reader.close();
  });
});
