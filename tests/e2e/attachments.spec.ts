// Attachments end to end, with and without JavaScript: a customer opens a request with two files,
// the agent sees and downloads them, replies with a file and adds a note with a file; the customer
// gets the reply's file and never the note's; an 11 MB file and an .exe are refused with the
// catalogue's messages and the typed text kept; every file comes from the app as a download, whatever
// type storage holds for it. Fresh accounts and a workspace of their own (the seeded accounts are
// signed in by other specs: one code per email a minute).
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from '@playwright/test';
import { expect, picture, service, signedInContext, test, uniqueEmail, userId } from './fixtures.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');

/** A ticket's files in storage under one uploader's prefix, and the files recorded for it. */
async function storedAndRecorded(slug: string, number: number, uploader: string) {
  const [ws] = await service(`/rest/v1/workspaces?slug=eq.${slug}&select=id,tickets(id,number)`);
  const ticket = ws.tickets.find((t: { number: number }) => t.number === number);
  const folders: { name: string }[] = await service('/storage/v1/object/list/attachments', {
    method: 'POST',
    body: JSON.stringify({ prefix: `${uploader}/${ws.id}/${ticket.id}`, limit: 100 }),
  });
  const rows: { id: string }[] = await service(
    `/rest/v1/attachments?ticket_id=eq.${ticket.id}&uploader_id=eq.${uploader}&select=id`,
  );
  return { stored: folders.map((f) => f.name).sort(), recorded: rows.map((r) => r.id).sort() };
}

const files = (page: Page) => page.getByTestId('attachment');
const fileLink = (page: Page, name: string) => files(page).filter({ hasText: name });

/** The file route's answer: the file itself, from the app, as a download that nothing sniffs. */
async function downloaded(page: Page, href: string) {
  const res = await page.request.get(href, { maxRedirects: 0 });
  expect(res.status()).toBe(200);
  expect(res.headers()['content-disposition']).toMatch(/^attachment; filename="/);
  expect(res.headers()['x-content-type-options']).toBe('nosniff');
  expect(res.headers()['content-security-policy']).toBe("default-src 'none'; sandbox");
  return res;
}

for (const javaScript of [true, false]) {
  test.describe(`attachments ${javaScript ? 'with' : 'without'} JavaScript`, () => {
    test.describe.configure({ mode: 'serial' });
    const tag = randomUUID().slice(0, 8);
    const slug = `files-${javaScript ? 'js' : 'nojs'}-${tag}`;
    let agent: { context: BrowserContext; page: Page };
    let customer: { context: BrowserContext; page: Page };
    let number = 0;
    let noteFileHref = '';

    test.beforeAll(async ({ browser }) => {
      test.setTimeout(90_000);
      [agent, customer] = await Promise.all([
        signedInContext(browser, uniqueEmail('files-agent'), { javaScript }),
        signedInContext(browser, uniqueEmail('files-customer'), { javaScript }),
      ]);
      await agent.page.goto('/onboarding');
      await agent.page.getByLabel('Workspace name').fill(`Files ${tag}`);
      await agent.page.getByLabel('Address').fill(slug);
      await agent.page.getByRole('button', { name: 'Create workspace' }).click();
      await agent.page.waitForURL(`/w/${slug}`);
    });
    test.afterAll(async () => {
      await agent?.context.close();
      await customer?.context.close();
    });

    test('a request with two files; the agent sees and downloads them', async () => {
      const page = customer.page;
      await page.goto(`/support/${slug}/new`);
      await page.getByLabel('Subject').fill(`Broken screen ${tag}`);
      await page.getByLabel('Message').fill('Photo and receipt attached.');
      // Not in alphabetical order: both pages list them as they were chosen.
      await page.getByLabel('Attachments').setInputFiles([
        { name: 'receipt.pdf', mimeType: 'application/pdf', buffer: PDF },
        { name: 'cracked screen.png', mimeType: 'image/png', buffer: PNG },
      ]);
      await page.getByRole('button', { name: 'Submit request' }).click();
      await page.waitForURL(/\/requests\/\d+$/);
      number = Number(/requests\/(\d+)$/.exec(page.url())![1]);
      await expect(files(page)).toHaveCount(2);
      await expect(fileLink(page, 'cracked screen.png').locator('img')).toBeVisible();

      const a = agent.page;
      await a.goto(`/w/${slug}/tickets/${number}`);
      await expect(files(a)).toHaveCount(2);
      await expect(a.locator('.hd-message').first()).toContainText('receipt.pdf');
      for (const p of [page, a]) await expect(files(p)).toContainText(['receipt.pdf', 'cracked screen.png']);
      // The thumbnail loads (through the redirect to storage).
      await expect
        .poll(() =>
          fileLink(a, 'cracked screen.png')
            .locator('img')
            .evaluate((img: HTMLImageElement) => img.naturalWidth),
        )
        .toBe(2);
      const href = (await fileLink(a, 'receipt.pdf').getAttribute('href'))!;
      expect(href).toMatch(new RegExp(`^/w/${slug}/tickets/${number}/files/[0-9a-f-]{36}$`));
      const file = await downloaded(a, href);
      expect(file.headers()['content-disposition']).toMatch(/^attachment; filename="receipt\.pdf"/);
      expect(file.headers()['content-type']).toBe('application/pdf');
      expect(Buffer.from(await file.body()).equals(PDF)).toBe(true);
      const image = await downloaded(a, (await fileLink(a, 'cracked screen.png').getAttribute('href'))!);
      expect(image.headers()['content-type']).toBe('image/png');
      // In the browser: a click downloads it, under its name.
      const [download] = await Promise.all([a.waitForEvent('download'), fileLink(a, 'receipt.pdf').click()]);
      expect(download.suggestedFilename()).toBe('receipt.pdf');
    });

    test('the agent replies with a file and adds a note with a file; the customer gets only the reply’s', async () => {
      const a = agent.page;
      await a.goto(`/w/${slug}/tickets/${number}`);
      const composer = a.locator('form.hd-composer');
      await composer.getByLabel('Message', { exact: true }).fill('Here is the return label.');
      await composer.getByLabel('Attachments').setInputFiles({
        name: 'return label.pdf',
        mimeType: 'application/pdf',
        buffer: PDF,
      });
      await composer.getByRole('button', { name: 'Send', exact: true }).click();
      await expect(a.locator('[data-kind="reply"]', { hasText: 'Here is the return label.' })).toContainText(
        'return label.pdf',
      );
      await composer.getByRole('radio', { name: 'Internal note' }).check();
      await composer.getByLabel('Message', { exact: true }).fill('Warranty check attached.');
      await composer.getByLabel('Attachments').setInputFiles({
        name: 'warranty.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('in warranty until 2027'),
      });
      await composer.getByRole('button', { name: 'Add internal note' }).click();
      const note = a.locator('[data-kind="note"]', { hasText: 'Warranty check attached.' });
      await expect(note).toContainText('warranty.txt');
      noteFileHref = (await fileLink(a, 'warranty.txt').getAttribute('href'))!;
      await picture(a, 'agent-thread-1366');

      const c = customer.page;
      await c.goto(`/support/${slug}/requests/${number}`);
      await expect(files(c)).toHaveCount(3);
      await expect(fileLink(c, 'return label.pdf')).toBeVisible();
      await expect(c.getByText('warranty.txt')).toHaveCount(0);
      await downloaded(c, (await fileLink(c, 'return label.pdf').getAttribute('href'))!);
      // The note's file, by its id on the requester's route: not found.
      const noteId = noteFileHref.split('/').pop();
      const res = await c.request.get(`/support/${slug}/requests/${number}/files/${noteId}`, { maxRedirects: 0 });
      expect(res.status()).toBe(404);
      await picture(c, 'customer-thread-1366');
      await c.setViewportSize({ width: 375, height: 800 });
      await picture(c, 'customer-thread-375');
      await a.setViewportSize({ width: 375, height: 800 });
      await picture(a, 'agent-thread-375');
    });

    test('a file storage holds as an SVG (a copy recorded before the database checked types) still only downloads', async () => {
      const a = agent.page;
      const me = await userId(a);
      const [ws] = await service(`/rest/v1/workspaces?slug=eq.${slug}&select=id,tickets(id,number,messages(id))`);
      const ticket = ws.tickets.find((t: { number: number }) => t.number === number);
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>document.title="ran"</script></svg>');
      const folder = `${me}/${ws.id}/${ticket.id}`;
      const [source, copy] = [randomUUID(), randomUUID()];
      await service(`/storage/v1/object/attachments/${folder}/${source}/logo.png`, {
        method: 'POST',
        body: svg,
        headers: { 'Content-Type': 'image/png' },
      });
      // storage-api's copy sets any type it is given (copyMetadata: false).
      await service('/storage/v1/object/copy', {
        method: 'POST',
        body: JSON.stringify({
          bucketId: 'attachments',
          sourceKey: `${folder}/${source}/logo.png`,
          destinationKey: `${folder}/${copy}/logo.svg`,
          copyMetadata: false,
          metadata: { mimetype: 'image/svg+xml' },
        }),
      });
      await service('/storage/v1/object/attachments', {
        method: 'DELETE',
        body: JSON.stringify({ prefixes: [`${folder}/${source}/logo.png`] }),
      });
      await service('/rest/v1/attachments', {
        method: 'POST',
        body: JSON.stringify({
          id: copy,
          message_id: ticket.messages[0].id,
          ticket_id: ticket.id,
          workspace_id: ws.id,
          uploader_id: me,
          path: `${folder}/${copy}/logo.svg`,
          file_name: 'logo.svg',
          size: svg.length,
          mime_type: 'image/svg+xml',
        }),
      });
      await a.goto(`/w/${slug}/tickets/${number}`);
      const link = fileLink(a, 'logo.svg');
      await expect(link.locator('img')).toHaveCount(0);
      const file = await downloaded(a, (await link.getAttribute('href'))!);
      expect(file.headers()['content-type']).toBe('application/octet-stream');
      expect(Buffer.from(await file.body()).equals(svg)).toBe(true);
      // Opened in the browser, it is saved, never shown.
      const [download] = await Promise.all([a.waitForEvent('download'), link.click()]);
      expect(download.suggestedFilename()).toBe('logo.svg');
      await expect(a).toHaveURL(`/w/${slug}/tickets/${number}`);
    });

    // Drag and drop and paste need JavaScript; without it the file input does the job.
    if (javaScript)
      test('files dropped on the composer and a pasted screenshot are sent with the message', async () => {
        const a = agent.page;
        await a.goto(`/w/${slug}/tickets/${number}`);
        const composer = a.locator('form.hd-composer');
        await expect(composer).toContainText('Drop files here or paste a screenshot.');
        await composer.getByLabel('Message', { exact: true }).fill('Dropped and pasted.');
        // The composer's formatting, loaded on its first focus, writes a pasted image into the text.
        await expect(composer).toHaveAttribute('data-rich', 'on');
        await composer.evaluate((form, png) => {
          const bytes = Uint8Array.from(atob(png), (ch) => ch.charCodeAt(0));
          const dropped = new DataTransfer();
          dropped.items.add(new File(['a,b\n1,2\n'], 'dropped.csv', { type: 'text/csv' }));
          form.dispatchEvent(new DragEvent('dragover', { dataTransfer: dropped, bubbles: true, cancelable: true }));
          form.dispatchEvent(new DragEvent('drop', { dataTransfer: dropped, bubbles: true, cancelable: true }));
          const clipboard = new DataTransfer();
          clipboard.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
          form
            .querySelector('textarea')!
            .dispatchEvent(new ClipboardEvent('paste', { clipboardData: clipboard, bubbles: true, cancelable: true }));
        }, PNG.toString('base64'));
        await expect
          .poll(() => composer.getByLabel('Attachments').evaluate((i: HTMLInputElement) => i.files?.length))
          .toBe(2);
        // The typed text is kept; the pasted image (not the dropped CSV) is written in where the cursor was
        // (docs/decisions/056-rich-replies-one-sanitiser.md).
        await expect(composer.getByLabel('Message', { exact: true })).toHaveValue(
          /^Dropped and pasted\.\n!\[screenshot-[\d-]+-1\.png\]\(attachment:screenshot-[\d-]+-1\.png\)\n$/,
        );
        await composer.getByRole('button', { name: 'Send', exact: true }).click();
        const message = a.locator('[data-kind="reply"]', { hasText: 'Dropped and pasted.' });
        await expect(message.getByTestId('attachment')).toHaveCount(2);
        await expect(message).toContainText('dropped.csv');
        await expect(message.getByTestId('attachment').filter({ hasText: /^screenshot-.*\.png$/ })).toHaveCount(1);
      });

    test('an 11 MB file and an .exe are refused with the catalogue’s messages; the text and the accepted file are kept', async () => {
      const page = customer.page;
      await page.setViewportSize({ width: 1366, height: 900 });
      await page.goto(`/support/${slug}/new`);
      await page.getByLabel('Subject').fill(`Too big ${tag}`);
      await page.getByLabel('Message').fill('Kept text.');
      await page.getByLabel('Attachments').setInputFiles([
        { name: 'video.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(11 * 1024 * 1024) },
        { name: 'setup.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') },
        { name: 'fine.png', mimeType: 'image/png', buffer: PNG },
      ]);
      await page.getByRole('button', { name: 'Submit request' }).click();
      const field = page.locator('.hd-files-field');
      await expect(field).toContainText('"video.pdf" is larger than 10 MB.');
      await expect(field).toContainText('"setup.exe" isn\'t a supported file type.');
      await expect(page).toHaveURL(new RegExp(`/support/${slug}/new$`));
      await expect(page.getByLabel('Subject')).toHaveValue(`Too big ${tag}`);
      await expect(page.getByLabel('Message')).toHaveValue('Kept text.');
      // Nothing was opened.
      const list = await page.context().newPage();
      await list.goto(`/support/${slug}`);
      await expect(list.getByText(`Too big ${tag}`)).toHaveCount(0);
      await list.close();
      if (javaScript) {
        // The page kept every file chosen, the refused ones marked: they are taken out one by one.
        await page.getByRole('button', { name: 'Remove video.pdf' }).click();
        await page.getByRole('button', { name: 'Remove setup.exe' }).click();
        await expect(page.getByTestId('chosen-file')).toHaveCount(1);
      } else {
        // The browser forgot every file: the accepted one waits in storage and goes with the next submit.
        await expect(page.getByTestId('attached-files')).toHaveText('Attached, sent with your request: fine.png');
        await expect(page.getByTestId('kept-files')).toHaveCount(0);
      }
      await page.getByRole('button', { name: 'Submit request' }).click();
      await expect(page).toHaveURL(new RegExp(`/support/${slug}/requests/\\d+$`));
      await expect(page.getByTestId('attachment')).toHaveText(['fine.png']);
    });

    test('a refused reply leaves no file behind in storage', async () => {
      const a = agent.page;
      await a.goto(`/w/${slug}/tickets/${number}`);
      const me = await userId(a);
      const before = await storedAndRecorded(slug, number, me);
      expect(before.stored).toEqual(before.recorded);
      const composer = a.locator('form.hd-composer');
      await composer.getByLabel('Message', { exact: true }).fill('Two files, one refused.');
      await composer.getByLabel('Attachments').setInputFiles([
        { name: 'good.png', mimeType: 'image/png', buffer: PNG },
        { name: 'tool.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') },
      ]);
      await composer.getByRole('button', { name: 'Send', exact: true }).click();
      await expect(a.locator('.hd-files-field')).toContainText('"tool.exe" isn\'t a supported file type.');
      await expect(composer.getByLabel('Message', { exact: true })).toHaveValue('Two files, one refused.');
      // good.png went to storage first (without JavaScript the server sees tool.exe after it), and is gone.
      expect(await storedAndRecorded(slug, number, me)).toEqual(before);
    });
  });
}
