// Rich replies end to end (issue 29 item 4; docs/decisions/056-rich-replies-one-sanitiser.md): the
// composer doesn't move when the page's JavaScript starts; the toolbar and Ctrl+B write Markdown; a
// pasted screenshot joins the files and is written where the cursor is; the thread, the portal and the
// customer's email show the bold text and the image in place (the email carries it inline, by
// Content-ID), and the PDF as an attachment; without JavaScript the same Markdown is typed.
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from '@playwright/test';
import {
  expect,
  expectNoViolations,
  inboundEmail,
  mailWith,
  newContext,
  newWorkspace,
  screenshots,
  test,
  uniqueEmail,
} from './fixtures.ts';

// A small PDF.
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');

/**
 * A screenshot pasted into the message box, as the clipboard hands it over ("image.png"): a 320×120
 * PNG drawn in the page. Returns its bytes, base64.
 */
async function pasteScreenshot(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 320;
    canvas.height = 120;
    const g = canvas.getContext('2d')!;
    g.fillStyle = '#1d4ed8';
    g.fillRect(0, 0, 320, 120);
    g.fillStyle = '#ffffff';
    g.font = 'bold 28px sans-serif';
    g.fillText('Error 42: paper jam', 16, 70);
    const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), 'image/png'));
    const bytes = new Uint8Array(await blob.arrayBuffer());
    const data = new DataTransfer();
    data.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
    const box = document.getElementById('body')!;
    box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    return btoa(String.fromCharCode(...bytes));
  });
}

test.describe('rich replies', () => {
  test.describe.configure({ mode: 'serial' });
  const tag = randomUUID().slice(0, 8);
  const customer = uniqueEmail('rich-casey');
  let agent: { context: BrowserContext; page: Page };
  let slug = '';
  let number = 0;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    agent = await newContext(browser);
    slug = await newWorkspace(agent.page, { label: 'rich' });
    const res = await inboundEmail({
      From: customer,
      FromFull: { Email: customer, Name: 'Casey', MailboxHash: '' },
      To: `${slug}@tend.localhost`,
      ToFull: [{ Email: `${slug}@tend.localhost`, Name: '', MailboxHash: '' }],
      Subject: `Printer jammed ${tag}`,
      TextBody: 'It **jams** on page 2. <b>Help</b>',
    });
    expect(res.status).toBe(200);
    number = (await res.json()).number;
  });
  test.afterAll(async () => {
    await agent?.context.close();
  });

  test('the composer is where it was drawn when the page’s JavaScript starts', async () => {
    const page = agent.page;
    // The page as the server drew it: its scripts held back until it was measured.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/build\/.*\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`/w/${slug}/tickets/${number}`, { waitUntil: 'commit' });
    const box = page.locator('#body');
    await expect(box).toBeVisible();
    const before = await box.boundingBox();
    release();
    // Started: the file field's enhancement (loaded after hydration) says what it adds.
    await expect(page.getByText('Drop files here or paste a screenshot.')).toBeVisible();
    const after = await box.boundingBox();
    await page.unrouteAll();
    expect(after?.y).toBe(before?.y);
    // The combobox came from the server too (no select without a reply to choose).
    await expect(page.getByRole('combobox', { name: 'Canned reply or article' })).toBeVisible();
  });

  test('bold from the toolbar and Ctrl+B, a pasted screenshot and a PDF: thread, portal and email show them', async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const page = agent.page;
    await page.goto(`/w/${slug}/tickets/${number}`);
    const form = page.locator('form.hd-composer');
    const box = form.getByLabel('Message', { exact: true });
    await box.fill('Hello Casey, ');
    await box.focus();
    await expect(form).toHaveAttribute('data-rich', 'on');
    // Ctrl+B around the selection; again takes it off; the toolbar's Bold puts it back.
    await box.press('End');
    await box.pressSequentially('try this');
    await box.press('Shift+Home');
    await box.press('Control+b');
    await expect(box).toHaveValue('**Hello Casey, try this**');
    await box.press('Control+b');
    await expect(box).toHaveValue('Hello Casey, try this');
    await form.getByRole('button', { name: 'Bold' }).click();
    await expect(box).toHaveValue('**Hello Casey, try this**');
    await box.press('End');
    await box.press('Enter');
    await box.pressSequentially('first step');
    await form.getByRole('button', { name: 'Numbered list' }).click();
    await expect(box).toHaveValue('**Hello Casey, try this**\n1. first step');
    await box.press('End');
    await box.press('Enter');
    await form
      .locator('input[type="file"]')
      .setInputFiles({ name: 'manual.pdf', mimeType: 'application/pdf', buffer: PDF });
    const png = await pasteScreenshot(page);
    await expect(box).toHaveValue(
      /^\*\*Hello Casey, try this\*\*\n1\. first step\n!\[screenshot-[\d-]+-1\.png\]\(attachment:screenshot-[\d-]+-1\.png\)\n$/,
    );
    const shot = /attachment:(screenshot-[\d-]+-1\.png)/.exec(await box.inputValue())![1];
    await screenshots(page, 'composer');
    await expectNoViolations(page);
    await form.getByRole('button', { name: 'Send', exact: true }).click();

    // The thread: bold, the list, the image in place from the page's file route.
    const sent = page.locator('.hd-message[data-kind="reply"]').last();
    await expect(sent.locator('.hd-message__body strong')).toHaveText('Hello Casey, try this');
    await expect(sent.locator('ol li')).toHaveText('first step');
    const image = sent.locator('.hd-message__body img');
    await expect(image).toHaveAttribute('src', new RegExp(`^/w/${slug}/tickets/${number}/files/[0-9a-f-]{36}$`));
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(320);
    // The customer's own text stays as written: no Markdown, no HTML.
    await expect(page.locator('.hd-message').first()).toContainText('It **jams** on page 2. <b>Help</b>');

    // The email: branded HTML with the bold text and the image inline by its Content-ID, the PDF
    // attached, and a text part without Markdown's marks.
    const mail = await mailWith(customer, 'Hello Casey, try this');
    expect(mail.HTML).toContain('<strong>Hello Casey, try this</strong>');
    // The image part goes inline with a Content-ID of ours; the catcher (mailparser) puts the part's
    // bytes where the HTML names its cid, as a mail client shows it: the pasted PNG, in place.
    expect(mail.Inline).toEqual([
      expect.objectContaining({
        ContentID: expect.stringMatching(/^[0-9a-f-]{36}@/),
        ContentType: 'image/png',
        FileName: shot,
      }),
    ]);
    expect(mail.HTML).toMatch(new RegExp(`<img[^>]+src="data:image/png;base64,${png.replace(/[+/]/g, '\\$&')}"`));
    expect(mail.Attachments.map((a) => a.FileName)).toContain('manual.pdf');
    // (The image line continues the list item, as Markdown reads it.)
    expect(mail.Text).toContain(`Hello Casey, try this\n\n1. first step\n   [image: ${shot}]`);
    expect(mail.Text).not.toContain('**Hello');
    // The customer's own words are quoted as they wrote them.
    expect(mail.Text).toContain('> It **jams** on page 2. <b>Help</b>');

    // The email as a mail client shows it, wide and narrow.
    const reader = await agent.context.newPage();
    await reader.setContent(mail.HTML);
    await expect(reader.locator('strong', { hasText: 'Hello Casey, try this' })).toBeVisible();
    await screenshots(reader, 'email-rich-reply');
    await reader.close();

    // The portal, through the email's one-click link: the same rendering from the portal's file route.
    const link = mail.Text.match(/https?:\/\/\S+/g)!.find((u) => new URL(u).pathname === '/auth/confirm')!;
    const portal = await newContext(browser);
    await portal.page.goto(link);
    await portal.page.getByRole('button', { name: 'Confirm sign-in' }).click();
    const reply = portal.page.locator('.hd-message', { hasText: 'Hello Casey' });
    await expect(reply.locator('.hd-message__body strong')).toHaveText('Hello Casey, try this');
    await expect(reply.locator('.hd-message__body img')).toHaveAttribute(
      'src',
      new RegExp(`^/support/${slug}/requests/${number}/files/[0-9a-f-]{36}$`),
    );
    await expectNoViolations(portal.page);
    await portal.context.close();
  });

  test('without JavaScript the toolbar is away and typed Markdown renders', async ({ browser }) => {
    const nojs = await newContext(browser, { javaScript: false });
    const nojsSlug = await newWorkspace(nojs.page, { label: 'richnojs' });
    const res = await inboundEmail({
      From: customer,
      FromFull: { Email: customer, Name: 'Casey', MailboxHash: '' },
      To: `${nojsSlug}@tend.localhost`,
      ToFull: [{ Email: `${nojsSlug}@tend.localhost`, Name: '', MailboxHash: '' }],
      Subject: `Scanner ${tag}`,
      TextBody: 'Scanner is off.',
    });
    const n = (await res.json()).number;
    await nojs.page.goto(`/w/${nojsSlug}/tickets/${n}`);
    await expect(nojs.page.getByRole('toolbar', { name: 'Formatting' })).toBeHidden();
    await expect(nojs.page.getByRole('combobox', { name: 'Canned reply or article' })).toBeHidden();
    const form = nojs.page.locator('form.hd-composer');
    await form
      .getByLabel('Message', { exact: true })
      .fill('Press **Scan** then:\n\n- wait\n- [read this](https://example.com/scan)');
    await form.getByRole('button', { name: 'Send', exact: true }).click();
    const sent = nojs.page.locator('.hd-message[data-kind="reply"]').last();
    await expect(sent.locator('.hd-message__body strong')).toHaveText('Scan');
    await expect(sent.getByRole('link', { name: 'read this' })).toHaveAttribute('href', 'https://example.com/scan');
    await nojs.context.close();
  });

  test('an agent starts a new conversation; the customer gets it and replies into it; the agent forwards it and the answer comes back as a note', async () => {
    test.setTimeout(120_000);
    const page = agent.page;
    const casey = uniqueEmail('rich-new');
    await page.goto(`/w/${slug}`);
    await page.getByRole('link', { name: 'New conversation' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('New conversation');
    await page.getByLabel('Customer’s email').fill(casey);
    await page.getByLabel('Subject').fill(`Your refund ${tag}`);
    await page.getByLabel('Message', { exact: true }).fill('Your refund is **on its way**.');
    await page
      .locator('input[type="file"]')
      .setInputFiles({ name: 'refund.pdf', mimeType: 'application/pdf', buffer: PDF });
    await screenshots(page, 'new-conversation');
    await expectNoViolations(page);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Your refund ${tag}`);
    await expect(page.locator('.hd-ticket__facts')).toContainText('Pending');
    await expect(page.locator('.hd-message__body strong')).toHaveText('on its way');

    // The customer's email: the message, the PDF, a Reply-To that threads.
    const mail = await mailWith(casey, 'Your refund is on its way.');
    expect(mail.Subject).toMatch(new RegExp(`^Your refund ${tag} \\[#\\d+\\]$`));
    expect(mail.Attachments.map((a) => a.FileName)).toEqual(['refund.pdf']);
    const res = await inboundEmail({
      From: casey,
      FromFull: { Email: casey, Name: 'Casey New', MailboxHash: '' },
      To: mail.ReplyTo[0].Address,
      ToFull: [{ Email: mail.ReplyTo[0].Address, Name: '', MailboxHash: '' }],
      Subject: `Re: ${mail.Subject}`,
      TextBody: 'Thank you, got it.',
    });
    expect(res.status).toBe(200);
    await page.reload();
    await expect(page.locator('.hd-message[data-kind="reply"]', { hasText: 'Thank you, got it.' })).toBeVisible();

    // Forward the conversation to a supplier, with a note.
    const supplier = uniqueEmail('rich-supplier');
    await page.getByText('More', { exact: true }).click();
    await page.getByRole('link', { name: 'Forward' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Forward');
    await page.getByLabel('To', { exact: true }).fill(supplier);
    await page.getByLabel('Note').fill('Can you confirm the **refund**?');
    await screenshots(page, 'forward');
    await expectNoViolations(page);
    await page.getByRole('button', { name: 'Forward' }).click();
    await expect(
      page.locator('.hd-message--note', { hasText: `Forwarded this conversation to ${supplier}` }),
    ).toBeVisible();
    const forwarded = await mailWith(supplier, 'Can you confirm the refund?');
    expect(forwarded.Subject).toMatch(/^Fwd: Your refund/);
    expect(forwarded.Text).toContain('Thank you, got it.');
    const answer = await inboundEmail({
      From: supplier,
      FromFull: { Email: supplier, Name: 'Sam Supplier', MailboxHash: '' },
      To: forwarded.ReplyTo[0].Address,
      ToFull: [{ Email: forwarded.ReplyTo[0].Address, Name: '', MailboxHash: '' }],
      Subject: `Re: ${forwarded.Subject}`,
      TextBody: 'Confirmed, it left our bank today.',
    });
    expect(answer.status).toBe(200);
    await page.reload();
    await expect(
      page.locator('.hd-message--note', { hasText: 'Confirmed, it left our bank today.' }).getByText('Internal note'),
    ).toBeVisible();
  });
});
