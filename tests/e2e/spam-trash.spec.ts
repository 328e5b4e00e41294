// Spam, Trash and split end to end (docs/product.md#spam-and-trash, docs/product.md#split), with JavaScript and
// without: an admin marks a mailed request as spam from the ticket's "More"; the sender's next email lands in Spam and
// mails no one (a clean sender's, sent after it, does: the catcher has that one and not the other);
// "Not spam" brings it back. Delete and Restore, then Empty trash. The scheduler's purge, with the
// ticket's time in Trash moved back by the test: the ticket and its file's object go. A requester's
// second message split into a new ticket, both histories linking the two.
import { randomUUID } from 'node:crypto';
import { messagesTo } from '../../scripts/lib/mail.ts';
import {
  env,
  expect,
  expectNoViolations,
  inboundEmail,
  mailWith,
  newContext,
  newWorkspace,
  screenshots,
  signedInContext,
  superuserSql,
  test,
  uniqueEmail,
} from './fixtures.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

/** An email from `from` to the workspace's address, as the provider posts it. */
async function mailIn(slug: string, from: string, subject: string, text: string, attachments: unknown[] = []) {
  const res = await inboundEmail({
    From: from,
    FromFull: { Email: from, Name: '', MailboxHash: '' },
    To: `${slug}@tend.localhost`,
    ToFull: [{ Email: `${slug}@tend.localhost`, Name: '', MailboxHash: '' }],
    Subject: subject,
    TextBody: text,
    Attachments: attachments,
  });
  expect(res.status).toBe(200);
}

/** Every email to `email` (notifications included) whose text has `text`. */
async function mailsWith(email: string, text: string) {
  const found = [];
  for (const { ID } of await messagesTo(env.mailUrl, email, { notifications: true })) {
    const mail = await (await fetch(`${env.mailUrl}/api/v1/message/${ID}`)).json();
    if (mail.Text.includes(text)) found.push(mail);
  }
  return found;
}

for (const javaScript of [true, false]) {
  test(`spam: the sender's next email lands in Spam and mails no one; "Not spam" brings it back (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    const adminEmail = uniqueEmail('spam-admin');
    const { context, page: a } = await signedInContext(browser, adminEmail, { javaScript });
    const slug = `spam-${randomUUID().slice(0, 8)}`;
    await a.goto('/onboarding');
    await a.getByLabel('Workspace name').fill(slug);
    await a.getByLabel('Address').fill(slug);
    await a.getByRole('button', { name: 'Create workspace' }).click();
    await expect(a).toHaveURL(new RegExp(`/w/${slug}$`));
    // The team hears of every new request by email, so silence is something to see.
    await superuserSql(
      `insert into notification_defaults (workspace_id, kind, email, in_app)
       select id, 'new_request', 'each', true from workspaces where slug = $1`,
      [slug],
    );
    const [spammer, clean] = [uniqueEmail('spammer'), uniqueEmail('clean')];
    await mailIn(slug, spammer, 'Cheap watches', 'Watches at 90% off, first offer.');
    await mailWith(adminEmail, 'Watches at 90% off, first offer.');

    await a.goto(`/w/${slug}/tickets/1`);
    await a.getByText('More', { exact: true }).click();
    await screenshots(a, `ticket-more-js-${javaScript}`);
    if (javaScript) await expectNoViolations(a);
    await a.getByRole('button', { name: 'Mark as spam' }).click();
    await expect(a.getByTestId('ticket-notice')).toContainText('This ticket is in Spam');
    // The team writes nothing there: the composer is gone.
    await expect(a.getByRole('button', { name: 'Send', exact: true })).toHaveCount(0);
    const history = a.getByRole('complementary', { name: 'Ticket details' });
    await expect(history).toContainText('marked it as spam');

    // The sender writes again: Spam, and no email; a clean sender's request after it is mailed.
    await mailIn(slug, spammer, 'Cheap watches again', 'Watches at 95% off, second offer.');
    await mailIn(slug, clean, 'Login broken', 'I cannot sign in since Monday.');
    await mailWith(adminEmail, 'I cannot sign in since Monday.');
    expect(await mailsWith(adminEmail, 'second offer')).toEqual([]);
    await a.goto(`/w/${slug}?view=spam`);
    const rows = a.getByTestId('inbox-row');
    await expect(rows).toHaveCount(2);
    await expect(a.getByTestId('count-spam')).toHaveText('2');
    await screenshots(a, `spam-view-js-${javaScript}`);
    if (javaScript) await expectNoViolations(a);
    await a.goto(`/w/${slug}?view=unassigned`);
    await expect(a.getByTestId('inbox-row')).toHaveCount(1);
    await expect(a.getByTestId('inbox-row')).toContainText('Login broken');

    // "Not spam" brings it back, and the sender: their next email is a request like any other.
    await a.goto(`/w/${slug}/tickets/1`);
    await a.getByTestId('ticket-notice').getByRole('button', { name: 'Not spam' }).click();
    await expect(a.getByTestId('ticket-notice')).toHaveCount(0);
    await mailIn(slug, spammer, 'Sorry', 'A real question about my order, third message.');
    await mailWith(adminEmail, 'A real question about my order, third message.');
    await a.goto(`/w/${slug}?view=unassigned`);
    await expect(a.getByTestId('inbox-row')).toHaveCount(3);
    await context.close();
  });

  test(`delete and restore a ticket, then empty the trash (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(180_000);
    const { context, page: a } = await newContext(browser, { javaScript });
    const slug = await newWorkspace(a, { label: 'trash' });
    await mailIn(slug, uniqueEmail('trash-casey'), 'Old newsletter', 'Our newsletter, nothing to answer.');
    await expect.poll(async () => (await a.goto(`/w/${slug}/tickets/1`))?.status()).toBe(200);

    await a.getByText('More', { exact: true }).click();
    await a.getByRole('button', { name: 'Delete' }).click();
    const notice = a.getByTestId('ticket-notice');
    await expect(notice).toContainText('This ticket is in Trash: it is deleted for good, with its files, on');
    await screenshots(a, `ticket-trash-js-${javaScript}`);
    if (javaScript) await expectNoViolations(a);
    await notice.getByRole('button', { name: 'Restore' }).click();
    await expect(notice).toHaveCount(0);
    await expect(a.getByRole('complementary', { name: 'Ticket details' })).toContainText('restored it from Trash');

    // Deleted again, from the inbox's bulk bar this time.
    await a.goto(`/w/${slug}?view=all`);
    await a.getByTestId('inbox-row').first().getByRole('checkbox').check();
    await a.getByLabel('Change the selected', { exact: true }).selectOption('trash');
    await a.getByRole('button', { name: 'Update tickets' }).click();
    await expect(a.getByTestId('bulk-done')).toHaveText('1 updated');
    await a.goto(`/w/${slug}?view=all`);
    await expect(a.getByTestId('inbox-row')).toHaveCount(0);
    await a.goto(`/w/${slug}?view=trash`);
    await expect(a.getByTestId('inbox-row')).toHaveCount(1);
    await screenshots(a, `trash-view-js-${javaScript}`, async () => {
      // An open <details> has open="" (falsy): only a missing attribute means closed.
      if ((await a.locator('details.hd-confirm').getAttribute('open')) === null)
        await a.getByText('Empty trash').click();
    });
    if (javaScript) await expectNoViolations(a);
    await a.getByRole('button', { name: 'Delete 1 tickets for good' }).click();
    await expect(a.getByTestId('bulk-done')).toHaveText('1 deleted for good');
    expect((await a.goto(`/w/${slug}/tickets/1`))?.status()).toBe(404);
    await context.close();
  });
}

test('the scheduler deletes a ticket 30 days in Trash, with its file', async ({ browser }) => {
  test.setTimeout(240_000);
  const { context, page: a } = await newContext(browser);
  const slug = await newWorkspace(a, { label: 'purge' });
  await mailIn(slug, uniqueEmail('purge-casey'), 'A photo', 'Here is the photo.', [
    { Name: 'photo.png', Content: PNG.toString('base64'), ContentType: 'image/png', ContentLength: PNG.length },
  ]);
  await expect.poll(async () => (await a.goto(`/w/${slug}/tickets/1`))?.status()).toBe(200);
  const [{ id }] = await superuserSql(
    `select t.id from tickets t join workspaces w on w.id = t.workspace_id where w.slug = $1 and t.number = 1`,
    [slug],
  );
  const objects = async () =>
    (
      await superuserSql(
        `select count(*)::int as n from storage.objects where bucket_id = 'attachments' and name like $1`,
        [`%/${id}/%`],
      )
    )[0].n as number;
  await expect.poll(objects).toBe(1);
  await a.getByText('More', { exact: true }).click();
  await a.getByRole('button', { name: 'Delete' }).click();
  await expect(a.getByTestId('ticket-notice')).toContainText('This ticket is in Trash');
  // Time moves on: 30 days in Trash, and the file older than the sweep's hour.
  await superuserSql(`update tickets set trashed_at = now() - interval '30 days 1 minute' where id = $1`, [id]);
  await superuserSql(`update storage.objects set created_at = now() - interval '2 hours' where name like $1`, [
    `%/${id}/%`,
  ]);
  // The job runs every minute (pg_cron; every 2 s in the e2e run's own stack, tests/e2e/global-setup.ts),
  // then the sweep removes the file through the storage API.
  await expect
    .poll(async () => (await superuserSql('select count(*)::int as n from tickets where id = $1', [id]))[0].n, {
      timeout: 150_000,
      intervals: [1_000],
    })
    .toBe(0);
  await expect.poll(objects, { timeout: 60_000, intervals: [500] }).toBe(0);
  expect((await a.goto(`/w/${slug}/tickets/1`))?.status()).toBe(404);
  await context.close();
});

for (const javaScript of [true, false]) {
  test(`an agent splits a requester's second message into a new ticket (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(180_000);
    const { context, page: a } = await newContext(browser, { javaScript });
    const slug = await newWorkspace(a, { label: 'split' });
    const customerEmail = uniqueEmail('split-casey');
    const customer = await signedInContext(browser, customerEmail, { javaScript });
    const c = customer.page;
    await c.goto(`/support/${slug}/new`);
    await c.getByLabel('Subject').fill('Two things');
    await c.getByLabel('Message').fill('My printer is on fire.');
    await c.getByRole('button', { name: 'Submit request' }).click();
    await c.waitForURL(new RegExp(`/support/${slug}/requests/1$`));
    await c.getByLabel('Your reply').fill('Also, my invoice for March is wrong.');
    await c.getByRole('button', { name: 'Send reply' }).click();
    await expect(c.getByText('Also, my invoice for March is wrong.')).toBeVisible();

    await a.goto(`/w/${slug}/tickets/1`);
    const second = a.locator('[data-kind="reply"]', { hasText: 'Also, my invoice for March is wrong.' });
    // The first message can be split too (there are two), never a note or the team's reply.
    await expect(a.getByRole('link', { name: 'Split into a new ticket' })).toHaveCount(2);
    await second.getByRole('link', { name: 'Split into a new ticket' }).click();
    await expect(a.getByRole('heading', { name: 'Split into a new ticket?' })).toBeVisible();
    await expect(a.locator('blockquote')).toHaveText('Also, my invoice for March is wrong.');
    await screenshots(a, `split-confirm-js-${javaScript}`);
    if (javaScript) await expectNoViolations(a);
    await a.getByRole('button', { name: 'Split into a new ticket' }).click();

    await expect(a).toHaveURL(new RegExp(`/w/${slug}/tickets/2$`));
    await expect(a.locator('[data-kind="reply"]')).toHaveText([/Also, my invoice for March is wrong\./]);
    const history = a.getByRole('complementary', { name: 'Ticket details' });
    await expect(history).toContainText('split this ticket off from #1');
    await a.goto(`/w/${slug}/tickets/1`);
    await expect(a.locator('[data-kind="reply"]')).toHaveText([/My printer is on fire\./]);
    await expect(history).toContainText('split a message off into #2');
    // Its only message now: nothing left to split off.
    await expect(a.getByRole('link', { name: 'Split into a new ticket' })).toHaveCount(0);
    // The requester has two requests.
    await c.goto(`/support/${slug}`);
    await expect(c.getByRole('link', { name: 'Two things' })).toHaveCount(2);
    await Promise.all([context.close(), customer.context.close()]);
  });
}
