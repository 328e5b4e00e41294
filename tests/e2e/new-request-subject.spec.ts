// A long subject on a new request (issue 25 item 9, "Forms"; docs/product.md §5): nothing is cut out of
// sight. A subject past 200 characters comes back cut after its last whole word, the rest at the top of
// the message and a message saying so at the field; with JavaScript a counter says it before sending,
// and the message goes once the subject is edited. Then the request is sent with both parts.
import { randomUUID } from 'node:crypto';
import {
  expect,
  expectNoViolations,
  screenshots,
  serviceRest,
  signedInContext,
  test,
  uniqueEmail,
} from './fixtures.ts';

const CUT_MESSAGE =
  'A subject has at most 200 characters, so it was cut after a whole word and the rest put at the top of the message. Check both, then send.';

for (const javaScript of [true, false]) {
  test(`a subject past 200 characters is cut at a word, the rest moved to the message (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const tag = randomUUID().slice(0, 8);
    const slug = `subject-${javaScript ? 'js' : 'nojs'}-${tag}`;
    const { context: owner, page: admin } = await signedInContext(browser, uniqueEmail('subject-admin'));
    await admin.goto('/onboarding');
    await admin.getByLabel('Workspace name').fill(`Subject ${tag}`);
    await admin.getByLabel('Address').fill(slug);
    await admin.getByRole('button', { name: 'Create workspace' }).click();
    await admin.waitForURL(`/w/${slug}`);
    await owner.close();

    const { context, page } = await signedInContext(browser, uniqueEmail('subject-customer'), { javaScript });
    await page.goto(`/support/${slug}/new`);
    // 25 words of 9 characters with spaces: 249 characters; the 20th word ends at 199.
    const words = Array.from({ length: 25 }, (_, i) => `w${String(i).padStart(2, '0')}${tag.slice(0, 5)}-`);
    const long = words.join(' ');
    const subject = page.getByLabel('Subject');
    // As a paste: the browser's limits apply to it.
    await subject.focus();
    await page.keyboard.insertText(long);
    await expect(subject).toHaveValue(long);
    if (javaScript) {
      await expect(page.getByTestId('subject-counter')).toHaveText(
        '249 of 200 characters. When you send, the subject ends at the last whole word that fits and the rest goes to the top of the message.',
      );
    }
    await page.getByLabel('Message').fill('The printer jams.');
    await page.getByRole('button', { name: 'Submit request' }).click();

    const kept = words.slice(0, 20).join(' ');
    const moved = words.slice(20).join(' ');
    await expect(page.getByText(CUT_MESSAGE)).toBeVisible();
    await expect(subject).toHaveValue(kept);
    await expect(subject).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByLabel('Message')).toHaveValue(`${moved}\n\nThe printer jams.`);
    if (javaScript) {
      // The counter spoke of the subject before the cut.
      await expect(page.getByTestId('subject-counter')).toBeEmpty();
      await expectNoViolations(page);
    }
    await screenshots(page, `new-request-subject-cut-${javaScript ? 'js' : 'nojs'}`);

    if (javaScript) {
      // Edited: the message about the cut is no longer shown; the counter is gone under 180.
      await subject.press('End');
      await subject.press('Backspace');
      await expect(page.getByText(CUT_MESSAGE)).toHaveCount(0);
      await expect(subject).not.toHaveAttribute('aria-invalid', 'true');
      await subject.fill(kept);
    }
    await page.getByRole('button', { name: 'Submit request' }).click();
    await expect(page).toHaveURL(new RegExp(`/support/${slug}/requests/\\d+$`));
    const [ws] = await serviceRest(`workspaces?slug=eq.${slug}&select=tickets(subject,messages(body))`);
    // A form sent without JavaScript carries a textarea's line breaks as CRLF.
    const body = ws.tickets[0].messages[0].body.replaceAll('\r\n', '\n');
    expect({ subject: ws.tickets[0].subject, body }).toEqual({ subject: kept, body: `${moved}\n\nThe printer jams.` });
    await context.close();
  });
}

test('a stale message goes once its field is edited (JavaScript)', async ({ browser }) => {
  const { context, page } = await signedInContext(browser, uniqueEmail('stale-customer'));
  await page.goto('/support/acme/new');
  await page.getByRole('button', { name: 'Submit request' }).click();
  const subjectError = page.getByText('Enter a subject of 1 to 200 characters.');
  await expect(subjectError).toBeVisible();
  await expect(page.getByText('Write a message.')).toBeVisible();
  await page.getByLabel('Subject').fill('Fixed');
  await expect(subjectError).toHaveCount(0);
  // The other field's message stays until it changes too.
  await expect(page.getByText('Write a message.')).toBeVisible();
  await page.getByLabel('Message').fill('Now with text.');
  await expect(page.getByText('Write a message.')).toHaveCount(0);
  await context.close();
});
