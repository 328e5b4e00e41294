// Where people land (docs/product.md §2, issue 25 item 9): an agent of one workspace signs in into its
// inbox; someone who only has requests isn't offered "Create a workspace" on the home page; someone
// new is.
import { randomUUID } from 'node:crypto';
import { expect, newContext, sentEarlier, signIn, test, uniqueEmail } from './fixtures.ts';

test('an agent of one workspace lands in its inbox; a customer is not offered to create a workspace', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const slug = `landing-${randomUUID().slice(0, 8)}`;
  const agentEmail = uniqueEmail('landing-agent');
  const first = await newContext(browser);
  await signIn(first.page, { email: agentEmail });
  // Someone new: no workspace, no request, so the home page offers to start one.
  await expect(first.page).toHaveURL(/\/$/);
  await expect(first.page.getByRole('link', { name: 'Create a workspace' })).toBeVisible();
  await first.page.goto('/onboarding');
  await first.page.getByLabel('Workspace name').fill('Landing');
  await first.page.getByLabel('Address').fill(slug);
  await first.page.getByRole('button', { name: 'Create workspace' }).click();
  await first.page.waitForURL(`/w/${slug}`);
  await first.context.close();

  // Signing in again (another browser) with nothing asked for: the inbox.
  await sentEarlier(agentEmail, 120);
  const again = await newContext(browser);
  await signIn(again.page, { email: agentEmail });
  await expect(again.page).toHaveURL(new RegExp(`/w/${slug}$`));
  await expect(again.page.getByRole('heading', { level: 1 })).toHaveText('Inbox');
  await again.context.close();

  // A customer with a request there: their requests, no offer to run a helpdesk.
  const customer = await newContext(browser);
  await signIn(customer.page, {
    email: uniqueEmail('landing-customer'),
    path: `/login?redirectTo=/support/${slug}/new`,
  });
  await customer.page.getByLabel('Subject').fill('Where is my parcel?');
  await customer.page.getByLabel('Message').fill('It was due on Monday.');
  await customer.page.getByRole('button', { name: 'Submit request' }).click();
  await customer.page.waitForURL(/\/requests\/1$/);
  await customer.page.goto('/');
  await expect(customer.page.getByTestId('my-requests')).toContainText('Where is my parcel?');
  await expect(customer.page.getByRole('link', { name: 'Create a workspace' })).toHaveCount(0);
  await expect(customer.page.getByRole('heading', { name: 'Your workspaces' })).toHaveCount(0);
  await customer.context.close();
});
