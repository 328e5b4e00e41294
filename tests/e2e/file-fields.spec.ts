// The file field of every composer with JavaScript (issue 25 item 9, "Forms"; docs/product.md §5): the
// chosen files are listed under it, a file the message can't take stays listed with why, "Remove" takes
// one chosen file out, and once the problem is gone so is its message. Without JavaScript the server's
// refusal keeps the text (attachments.spec.ts). Fresh accounts and a workspace of their own.
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import {
  expect,
  expectNoViolations,
  screenshots,
  serviceRest,
  signedInContext,
  test,
  uniqueEmail,
} from './fixtures.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);
const png = (name: string) => ({ name, mimeType: 'image/png', buffer: PNG });

const chosen = (page: Page) => page.getByRole('list', { name: 'Chosen files' }).getByTestId('chosen-file');

test('a refused file stays listed with its reason; removing files clears the message; the rest is sent', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const tag = randomUUID().slice(0, 8);
  const slug = `fields-${tag}`;
  const { context: agentContext, page: agent } = await signedInContext(browser, uniqueEmail('fields-agent'));
  await agent.goto('/onboarding');
  await agent.getByLabel('Workspace name').fill(`Fields ${tag}`);
  await agent.getByLabel('Address').fill(slug);
  await agent.getByRole('button', { name: 'Create workspace' }).click();
  await agent.waitForURL(`/w/${slug}`);
  const { context, page } = await signedInContext(browser, uniqueEmail('fields-customer'));

  await page.goto(`/support/${slug}/new`);
  await page.getByLabel('Subject').fill(`Files ${tag}`);
  await page.getByLabel('Message').fill('Three files.');
  const input = page.getByLabel('Attachments');
  await input.setInputFiles([
    { name: 'setup.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') },
    png('fine.png'),
    { name: 'video.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(11 * 1024 * 1024) },
  ]);
  await expect(chosen(page)).toHaveText([
    /^setup\.exe 2 bytes Can't be sent: file type not accepted Remove/,
    /^fine\.png \d+ bytes Remove/,
    /^video\.pdf 11\.0 MB Can't be sent: over 10 MB Remove/,
  ]);
  const field = page.locator('.hd-files-field');
  await expect(field.locator('.error-list')).toContainText('"setup.exe" isn\'t a supported file type.');
  await expect(input).toHaveAttribute('aria-invalid', 'true');
  await expectNoViolations(page);
  await screenshots(page, 'new-request-chosen-files');

  // A post with them is stopped in the page, the files still listed.
  await page.getByRole('button', { name: 'Submit request' }).click();
  await expect(chosen(page)).toHaveCount(3);
  await expect(page).toHaveURL(new RegExp(`/support/${slug}/new$`));

  // Remove the .exe: its message goes, the PDF's stays; the focus moves to the next file's button.
  await page.getByRole('button', { name: 'Remove setup.exe' }).click();
  await expect(chosen(page)).toHaveCount(2);
  await expect(page.getByRole('button', { name: 'Remove fine.png' })).toBeFocused();
  await expect(field.locator('.error-list')).not.toContainText('setup.exe');
  await expect(field.locator('.error-list')).toContainText('"video.pdf" is larger than 10 MB.');
  await page.getByRole('button', { name: 'Remove video.pdf' }).click();
  await expect(chosen(page)).toHaveText([/^fine\.png/]);
  await expect(field.locator('.error-list')).toHaveCount(0);
  await expect(input).not.toHaveAttribute('aria-invalid', 'true');
  expect(await input.evaluate((i: HTMLInputElement) => [...(i.files ?? [])].map((f) => f.name))).toEqual(['fine.png']);

  // What is left is sent.
  await page.getByRole('button', { name: 'Submit request' }).click();
  await expect(page).toHaveURL(new RegExp(`/support/${slug}/requests/\\d+$`));
  await expect(page.getByTestId('attachment')).toHaveText(['fine.png']);

  // The reply box lists files the same way: six files, the sixth one too many until one goes.
  await page.locator('input[type=file]').setInputFiles([1, 2, 3, 4, 5, 6].map((n) => png(`shot-${n}.png`)));
  await expect(chosen(page)).toHaveCount(6);
  await expect(chosen(page).last()).toContainText("Can't be sent: more than 5 files");
  await expect(page.locator('.hd-files-field .error-list')).toContainText('Attach at most 5 files to one message.');
  await page.getByRole('button', { name: 'Remove shot-2.png' }).click();
  await expect(page.locator('.hd-files-field .error-list')).toHaveCount(0);
  await expect(chosen(page).filter({ hasText: "Can't be sent" })).toHaveCount(0);

  // The agent's composer: one of two files removed before sending.
  const [ws] = await serviceRest(`workspaces?slug=eq.${slug}&select=tickets(number)`);
  await agent.goto(`/w/${slug}/tickets/${ws.tickets[0].number}`);
  const composer = agent.locator('form.hd-composer');
  await composer.getByLabel('Message', { exact: true }).fill('One of two.');
  await composer.getByLabel('Attachments').setInputFiles([png('keep.png'), png('drop.png')]);
  await composer.getByRole('button', { name: 'Remove drop.png' }).click();
  await expect(chosen(agent)).toHaveText([/^keep\.png/]);
  await composer.getByRole('button', { name: 'Send', exact: true }).click();
  const reply = agent.locator('[data-kind="reply"]', { hasText: 'One of two.' });
  await expect(reply.getByTestId('attachment')).toHaveText(['keep.png']);
  // The composer is new after the send: no file listed.
  await expect(chosen(agent)).toHaveCount(0);
  await context.close();
  await agentContext.close();
});
