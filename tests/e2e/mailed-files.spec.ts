// Files a mailed message brought that Tend didn't take (issue 25 item 9, "Forms"; docs/product.md §5):
// the team reads them named on the message's last line; the requester never reads that line — not on the
// portal, not quoted in the team's reply email — but a note under their own message instead.
import { randomUUID } from 'node:crypto';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { env, expect, expectNoViolations, screenshots, signedInContext, test, uniqueEmail } from './fixtures.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);
const LINE = '[Not attached: virus.exe (file type not accepted)]';
const NOTE = '1 file was not attached: virus.exe (file type not accepted). Add files to a reply here instead.';

test('the team reads which mailed files were not attached; the requester a note, never the line', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const tag = randomUUID().slice(0, 8);
  const slug = `mailfiles-${tag}`;
  const customer = uniqueEmail('mailfiles-customer');
  const { context: agentContext, page: agent } = await signedInContext(browser, uniqueEmail('mailfiles-agent'));
  await agent.goto('/onboarding');
  await agent.getByLabel('Workspace name').fill(`Mail files ${tag}`);
  await agent.getByLabel('Address').fill(slug);
  await agent.getByRole('button', { name: 'Create workspace' }).click();
  await agent.waitForURL(`/w/${slug}`);

  const res = await fetch(`${process.env.E2E_API_URL}/functions/v1/inbound-email`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Basic ${btoa(`postmark:${process.env.E2E_INBOUND_EMAIL_SECRET}`)}`,
    },
    body: JSON.stringify({
      MessageID: randomUUID(),
      From: customer,
      FromFull: { Email: customer, Name: 'Casey', MailboxHash: '' },
      To: `${slug}@tend.localhost`,
      ToFull: [{ Email: `${slug}@tend.localhost`, Name: '', MailboxHash: '' }],
      Subject: `Broken lid ${tag}`,
      TextBody: 'Photo attached.',
      HtmlBody: '',
      Headers: [],
      Attachments: [
        { Name: 'photo.png', Content: PNG.toString('base64'), ContentType: 'image/png', ContentLength: PNG.length },
        { Name: 'virus.exe', Content: btoa('MZ'), ContentType: 'application/octet-stream', ContentLength: 2 },
      ],
    }),
  });
  expect(res.status).toBe(200);
  const { number } = await res.json();

  // The team: the message ends with the line naming the file.
  await agent.goto(`/w/${slug}/tickets/${number}`);
  const mailed = agent.locator('[data-kind="reply"]').first();
  // The body is rendered HTML (a paragraph each): the text, then the line.
  await expect(mailed.locator('.hd-message__body')).toHaveText(
    new RegExp(`^\\s*Photo attached\\.\\s*${LINE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`),
  );
  await expect(mailed.getByTestId('attachment')).toHaveText(['photo.png']);

  // The requester: the text as written, and a note under it.
  const { context, page } = await signedInContext(browser, customer);
  await page.goto(`/support/${slug}/requests/${number}`);
  const own = page.locator('[data-kind="reply"]').first();
  await expect(own.locator('.hd-message__body')).toHaveText(/^\s*Photo attached\.\s*$/);
  await expect(own.locator('.hd-message__notice')).toHaveText(NOTE);
  await expect(own.getByTestId('attachment')).toHaveText(['photo.png']);
  await expect(page.getByText('[Not attached')).toHaveCount(0);
  await expectNoViolations(page);
  await screenshots(page, 'portal-mailed-files-note');

  // The team's reply email quotes the requester's message without the line.
  const reply = `Thanks, got the photo (${tag}).`;
  const form = agent.locator('form.hd-composer');
  await form.getByRole('radio', { name: 'Reply to customer' }).check();
  await form.getByLabel('Message', { exact: true }).fill(reply);
  await form.getByRole('button', { name: 'Send', exact: true }).click();
  let text = '';
  await expect
    .poll(async () => {
      for (const { ID } of await messagesTo(env.mailUrl, customer, { notifications: true })) {
        const mail = await (await fetch(`${env.mailUrl}/api/v1/message/${ID}`)).json();
        if (mail.Text.includes(reply)) text = mail.Text;
      }
      return text.includes('Photo attached.');
    })
    .toBe(true);
  expect(text).not.toContain('[Not attached');
  await context.close();
  await agentContext.close();
});
