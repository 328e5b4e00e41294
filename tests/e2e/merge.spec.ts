// Merging tickets end to end (docs/product.md#merge), with JavaScript and without: two customers write
// in by email, an agent merges the second request into the first from its page ("Merge into…": a
// search that finds nothing says so, a number finds the ticket, the confirmation names it), lands on
// the first with both threads and the history saying who merged what; the second's page leads there;
// then both customers answer by email and both answers land on the first.
import { randomUUID } from 'node:crypto';
import { messagesTo } from '../../scripts/lib/mail.ts';
import {
  env,
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  test,
  uniqueEmail,
} from './fixtures.ts';

/** Posts an email to inbound-email as Postmark would (basic auth in the webhook URL). */
const inbound = (from: string, to: string, subject: string, text: string) =>
  fetch(`${process.env.E2E_API_URL}/functions/v1/inbound-email`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Basic ${btoa(`postmark:${process.env.E2E_INBOUND_EMAIL_SECRET}`)}`,
    },
    body: JSON.stringify({
      MessageID: randomUUID(),
      From: from,
      FromFull: { Email: from, Name: '', MailboxHash: '' },
      To: to,
      ToFull: [{ Email: to, Name: '', MailboxHash: '' }],
      Subject: subject,
      TextBody: text,
      HtmlBody: '',
      Headers: [],
      Attachments: [],
    }),
  });

/** The Reply-To of the newest email to `email` containing `text` (the team's reply). */
async function replyToOf(email: string, text: string): Promise<string> {
  let address = '';
  await expect
    .poll(
      async () => {
        for (const { ID } of await messagesTo(env.mailUrl, email, { notifications: true })) {
          const mail = await (await fetch(`${env.mailUrl}/api/v1/message/${ID}`)).json();
          if (mail.Text.includes(text)) address = mail.ReplyTo[0].Address;
        }
        return address;
      },
      { timeout: 30_000, message: `an email to ${email} with "${text}"` },
    )
    .not.toBe('');
  return address;
}

for (const javaScript of [true, false]) {
  test(`an agent merges two customers' requests; both answer by email into the first (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(300_000);
    const agent = await newContext(browser, { javaScript });
    const slug = await newWorkspace(agent.page, { label: 'merge' });
    const a = agent.page;
    const [casey, olive] = [uniqueEmail('merge-casey'), uniqueEmail('merge-olive')];
    const address = `${slug}@tend.localhost`;
    for (const [from, text] of [
      [casey, 'The invoice for March is missing.'],
      [olive, 'I never got the March invoice either.'],
    ])
      expect((await inbound(from, address, 'March invoice', text)).status).toBe(200);

    /** The agent's public reply on a ticket's page. */
    const reply = async (number: number, text: string) => {
      await a.goto(`/w/${slug}/tickets/${number}`);
      const form = a.locator('form.hd-composer');
      await form.getByRole('radio', { name: 'Reply to customer' }).check();
      await form.getByLabel('Message', { exact: true }).fill(text);
      await form.getByRole('button', { name: 'Send', exact: true }).click();
      await expect(a.locator('[data-kind="reply"]', { hasText: text })).toBeVisible();
    };
    // Olive's copy of the team's reply on #2, whose address she will answer after the merge.
    await reply(2, 'Looking into it, Olive.');
    const oliveReplyTo = await replyToOf(olive, 'Looking into it, Olive.');

    // "Merge into…": a search that finds nothing says so; #1 by its number is offered, to confirm.
    await a.goto(`/w/${slug}/tickets/2`);
    await a.getByText('More', { exact: true }).click();
    await a.getByText('Merge into…').click();
    const find = async (query: string) => {
      await a.getByLabel('Ticket number or subject').fill(query);
      await a.getByRole('button', { name: 'Find' }).click();
    };
    await find('zebra');
    await expect(a.getByText('No other ticket here matches.')).toBeVisible();
    await expect(a.getByLabel('Ticket number or subject')).toHaveValue('zebra');
    await find('1');
    const choice = a.getByRole('group', { name: 'Merge #2 into' });
    await expect(choice.getByRole('radio', { name: '#1 March invoice' })).toBeChecked();
    // axe runs in the page: with JavaScript (the markup is the same without).
    if (javaScript) await expectNoViolations(a);
    await screenshots(a, `merge-confirm-js-${javaScript}`);
    await a.getByRole('button', { name: 'Merge', exact: true }).click();

    // The first request now holds both customers' messages, in time order, and says who merged what.
    await expect(a).toHaveURL(new RegExp(`/w/${slug}/tickets/1$`));
    const thread = a.locator('[data-kind="reply"]');
    await expect(thread).toHaveText([
      /The invoice for March is missing\./,
      /I never got the March invoice either\./,
      /Looking into it, Olive\./,
    ]);
    const history = a.getByRole('complementary', { name: 'Ticket details' });
    await expect(history).toContainText('merged #2 into this ticket');
    await expect(history).toContainText('#2: ');
    // The second's page leads to the first.
    await a.goto(`/w/${slug}/tickets/2`);
    await expect(a).toHaveURL(new RegExp(`/w/${slug}/tickets/1$`));

    // Both answer by email: Olive to #2's address, Casey to the reply the team sends on #1.
    expect((await inbound(olive, oliveReplyTo, 'Re: March invoice', 'Found it in spam, thanks.')).status).toBe(200);
    await reply(1, 'Both of you: the invoice is on its way.');
    const caseyReplyTo = await replyToOf(casey, 'Both of you: the invoice is on its way.');
    expect((await inbound(casey, caseyReplyTo, 'Re: March invoice', 'Got it now.')).status).toBe(200);
    await a.goto(`/w/${slug}/tickets/1`);
    await expect(a.locator('[data-kind="reply"]', { hasText: 'Found it in spam, thanks.' })).toBeVisible();
    await expect(a.locator('[data-kind="reply"]', { hasText: 'Got it now.' })).toBeVisible();
    // No answer opened a request of its own.
    await a.goto(`/w/${slug}?view=all`);
    await expect(a.getByTestId('inbox-row')).toHaveCount(2);
    await agent.context.close();
  });
}
