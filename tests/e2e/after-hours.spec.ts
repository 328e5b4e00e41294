// Outside business hours (issue 28 item 7; docs/product.md "Business hours and SLA targets"): an admin
// picks the acknowledgement's canned reply at /w/:slug/settings/hours, with JavaScript and without; a
// request opened while the team is closed gets it by email, with when the team opens next. Fresh
// accounts and workspaces of their own.
import { randomUUID } from 'node:crypto';
import { messagesTo } from '../../scripts/lib/mail.ts';
import {
  env,
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  serviceRest,
  signInByForm,
  test,
  uniqueEmail,
} from './fixtures.ts';

for (const javaScript of [true, false]) {
  test(`an admin picks the after-hours acknowledgement; a request while closed gets it (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const { context, page } = await newContext(browser, { javaScript });
    const slug = await newWorkspace(page);
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    await serviceRest('canned_replies', {
      method: 'POST',
      body: JSON.stringify({
        workspace_id: workspace.id,
        title: 'We are closed',
        body: 'Hi {{requester.name}}, we got it.',
      }),
    });
    await page.goto(`/w/${slug}/settings/hours`);
    // Open one hour a week, three days from now (UTC, the new workspace's zone): closed now.
    const day = new Intl.DateTimeFormat('en-GB', { weekday: 'long', timeZone: 'UTC' }).format(
      new Date(Date.now() + 3 * 86_400_000),
    );
    await page.getByLabel(day, { exact: true }).fill('03:00–04:00');
    await page.getByRole('button', { name: 'Save hours' }).click();
    await expect(page.getByText('Opening hours saved.')).toBeVisible();
    await page.getByLabel('Acknowledgement').selectOption({ label: 'We are closed' });
    await page.getByRole('button', { name: 'Save acknowledgement' }).click();
    await expect(page.getByText('Acknowledgement saved.')).toBeVisible();
    await expect(page.getByLabel('Acknowledgement')).toHaveValue(/^[0-9a-f-]{36}$/);
    if (javaScript) {
      await expectNoViolations(page);
      await screenshots(page, 'settings-hours-after-hours');
    }

    const customerEmail = uniqueEmail('customer');
    const customer = await newContext(browser, { javaScript });
    await signInByForm(customer.page, customerEmail);
    const subject = `Night owl ${randomUUID().slice(0, 8)}`;
    await customer.page.goto(`/support/${slug}/new`);
    await customer.page.getByLabel('Subject').fill(subject);
    await customer.page.getByLabel('Message').fill('Anyone there?');
    await customer.page.getByRole('button', { name: 'Submit request' }).click();
    await customer.page.waitForURL(/\/requests\/\d+$/);
    await expect
      .poll(
        async () => {
          const found = (await messagesTo(env.mailUrl, customerEmail, { notifications: true })).find((m) =>
            m.Subject.startsWith(`Re: ${subject}`),
          );
          return found ? (await (await fetch(`${env.mailUrl}/api/v1/message/${found.ID}`)).json()).Text : '';
        },
        { timeout: 15_000, message: 'the acknowledgement' },
      )
      .toMatch(
        new RegExp(
          `we got it\\.\\s+We're closed right now: the team will answer from ${day}\\b.* 03:00 \\(UTC time\\)\\.`,
        ),
      );
    await context.close();
    await customer.context.close();
  });
}
