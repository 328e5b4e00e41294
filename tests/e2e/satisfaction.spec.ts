// Satisfaction ratings end to end (issue 28 item 4; docs/product.md "Satisfaction ratings"): a solved
// request's survey email in the mail catcher; its "Bad" link, followed signed out, records the answer;
// a comment is added (with JavaScript and without); the ticket's header, its inbox row and the reports show
// it, and the report's CSV carries it. Admins turn the survey off or word the question at /w/:slug/settings/satisfaction.
// Fresh accounts and workspaces of their own.
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { messagesTo } from '../../scripts/lib/mail.ts';
import {
  env,
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  signInByForm,
  test,
  uniqueEmail,
} from './fixtures.ts';

/** The customer's new request in the workspace's portal; its number. */
async function openRequest(page: Page, slug: string, subject: string) {
  await page.goto(`/support/${slug}/new`);
  await page.getByLabel('Subject').fill(subject);
  await page.getByLabel('Message').fill('The kettle clicks off after a second.');
  await page.getByRole('button', { name: 'Submit request' }).click();
  await page.waitForURL(/\/requests\/\d+$/);
  return Number(/requests\/(\d+)$/.exec(page.url())![1]);
}

/** The survey email's text, once it is in the mail catcher. */
async function surveyEmail(email: string, subject: string): Promise<string> {
  let text = '';
  await expect
    .poll(
      async () => {
        const found = (await messagesTo(env.mailUrl, email, { notifications: true })).find(
          (m) => m.Subject === subject,
        );
        if (found) text = (await (await fetch(`${env.mailUrl}/api/v1/message/${found.ID}`)).json()).Text;
        return !!found;
      },
      { timeout: 15_000, message: `the survey "${subject}" to ${email}` },
    )
    .toBe(true);
  return text;
}

for (const javaScript of [true, false]) {
  test(`a solved request's email asks; "Bad" and a comment reach the ticket and the report (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    // With the inbox row and the report per tag on top of the email, the rating page and the report: a long walk.
    test.setTimeout(240_000);
    const tag = randomUUID().slice(0, 8);
    const admin = await newContext(browser, { javaScript });
    const slug = await newWorkspace(admin.page);
    const customerEmail = uniqueEmail('customer');
    const customer = await newContext(browser, { javaScript });
    await signInByForm(customer.page, customerEmail);
    const subject = `Kettle ${tag}`;
    const number = await openRequest(customer.page, slug, subject);

    // The admin takes the request and solves it.
    const page = admin.page;
    await page.goto(`/w/${slug}/tickets/${number}`);
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await expect(page.locator('.hd-ticket__facts')).toContainText('assigned to');
    // Tagged, for the report per tag.
    await page.getByLabel('Add a tag').fill('kettles');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(page.locator('form.hd-tags').locator('[data-tag]')).toHaveText(['kettles×']);
    await page.getByLabel('Status', { exact: true }).selectOption('solved');
    if (!javaScript) await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.locator('.hd-ticket__facts [data-status]')).toHaveAttribute('data-status', 'solved');

    // The email: the question, three one-click answers.
    const text = await surveyEmail(customerEmail, `How did we do? [#${number}]`);
    const bad = /^Bad: (\S+)$/m.exec(text)![1];
    expect(new URL(bad).pathname).toBe(`/support/${slug}/requests/${number}/rating`);
    expect(text).toMatch(/^Good: \S+rating=good$/m);

    // Followed in a browser that never signed in: the answer is recorded at once.
    const stranger = await newContext(browser, { javaScript });
    const rating = stranger.page;
    await rating.goto(new URL(bad).pathname + new URL(bad).search);
    await expect(rating.getByTestId('rating-saved')).toContainText('Your answer: Bad');
    await expect(rating.getByRole('button', { name: 'Bad' })).toHaveAttribute('aria-pressed', 'true');
    // axe and the screenshots' width check run script in the page: with JavaScript only.
    if (javaScript) {
      await expectNoViolations(rating);
      await screenshots(rating, 'rating');
    }
    // A comment, then a look from the other side.
    const comment = `Took three days to hear back (${tag}).`;
    await rating.getByLabel('Anything to add? (optional)').fill(comment);
    await rating.getByRole('button', { name: 'Send comment' }).click();
    await expect(rating.getByTestId('rating-saved')).toContainText('Saved. Your answer: Bad, with your comment.');
    await expect(rating.getByLabel('Anything to add? (optional)')).toHaveValue(comment);

    await page.goto(`/w/${slug}/tickets/${number}`);
    await expect(page.locator('.hd-ticket__main')).toContainText('Rated Bad by the requester');
    await expect(page.getByTestId('rating-comment')).toHaveText(comment);
    if (javaScript) await screenshots(page, 'ticket-rated');
    // The inbox row says it too.
    await page.goto(`/w/${slug}?view=all`);
    await expect(page.getByTestId('inbox-row').filter({ hasText: subject })).toContainText('rated Bad');
    if (javaScript) await screenshots(page, 'inbox-rated');

    await page.goto(`/w/${slug}/reports?range=7`);
    const report = page.getByTestId('csat-report');
    await expect(report.getByTestId('csat-percent')).toHaveText('0 %');
    await expect(report.getByTestId('csat-comments')).toContainText(comment);
    await expect(report.getByTestId('csat-comments')).toContainText(`#${number} ${subject}`);
    const agents = page.getByTestId('agents');
    await expect(agents.getByRole('row').nth(1)).toContainText('1'); // one solved
    await expect(agents.getByRole('row').nth(1).getByRole('cell').last()).toHaveText('0 %');
    // Per tag: no SLA target here, one answer, Bad.
    const tags = page.getByTestId('tags');
    await expect(tags.getByRole('row').nth(1)).toContainText('kettles');
    await expect(tags.getByRole('row').nth(1).getByRole('cell').last()).toHaveText('0 %');
    expect(await (await page.request.get(`/w/${slug}/reports/csv/tags?range=7`)).text()).toContain(
      'kettles,0,0,,0,0,1,0',
    );
    if (javaScript) await expectNoViolations(page);
    // The comments' CSV, as the link downloads it.
    const csv = await (await page.request.get(`/w/${slug}/reports/csv/csat-comments?range=7`)).text();
    expect(csv).toContain(`${number},${subject},`);
    expect(csv).toContain(`Bad,${comment},`);
    if (javaScript) await screenshots(page, 'reports-satisfaction');

    // The requester's own page offers the survey too, with the answer given.
    await customer.page.goto(`/support/${slug}/requests/${number}`);
    await expect(customer.page.getByTestId('survey')).toContainText('Your answer: Bad.');
    await customer.page.getByTestId('survey').getByRole('link', { name: 'Good' }).click();
    await expect(customer.page.getByTestId('rating-saved')).toContainText('Your answer: Good');

    for (const c of [admin, customer, stranger]) await c.context.close();
  });
}

test('an admin words the question and turns the survey off; a refused question is kept at its field', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { context, page } = await newContext(browser);
  const slug = await newWorkspace(page);
  await page.goto(`/w/${slug}/settings`);
  await page
    .getByRole('navigation', { name: 'Workspace administration' })
    .getByRole('link', { name: 'Satisfaction' })
    .click();
  await expect(page.getByRole('heading', { name: 'Satisfaction survey', level: 1 })).toBeVisible();
  const question = page.getByLabel('Question');
  await expect(question).toHaveValue('How did we do?');
  await expect(page.getByLabel('Ask requesters when their request is solved')).toBeChecked();
  await question.fill('   ');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(question).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('Enter a question of 1 to 200 characters')).toBeVisible();
  await question.fill('Were we any help?');
  await page.getByLabel('Ask requesters when their request is solved').uncheck();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await expect(question).toHaveValue('Were we any help?');
  await expect(page.getByLabel('Ask requesters when their request is solved')).not.toBeChecked();
  await expectNoViolations(page);
  await screenshots(page, 'settings-satisfaction');

  // Off: solving asks nobody.
  const customerEmail = uniqueEmail('customer');
  const customer = await newContext(browser);
  await signInByForm(customer.page, customerEmail);
  const number = await openRequest(customer.page, slug, `Quiet ${randomUUID().slice(0, 8)}`);
  await page.goto(`/w/${slug}/tickets/${number}`);
  await page.getByLabel('Status', { exact: true }).selectOption('solved');
  await expect(page.locator('.hd-ticket__facts [data-status]')).toHaveAttribute('data-status', 'solved');
  await customer.page.goto(`/support/${slug}/requests/${number}`);
  await expect(customer.page.locator('[data-status]').first()).toHaveAttribute('data-status', 'solved');
  await expect(customer.page.getByTestId('survey')).toHaveCount(0);
  await context.close();
  await customer.context.close();
});
