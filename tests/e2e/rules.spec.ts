// Rules end to end (docs/product.md#rules), with JavaScript and without: an admin writes a rule at
// /w/:slug/settings/rules (an empty name and a tag that doesn't exist are refused at their fields, what
// was typed kept), a customer opens a refund request on the portal, and the agent finds it tagged and
// assigned, the history naming the rule; "Test this rule" lists it. Fresh accounts and a workspace of
// their own.
import type { Page } from '@playwright/test';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  serviceRest,
  signedInContext,
  test,
  uniqueEmail,
  userId,
} from './fixtures.ts';

async function openRequest(page: Page, slug: string, subject: string) {
  await page.goto(`/support/${slug}/new`);
  await page.getByLabel('Subject').fill(subject);
  await page.getByLabel('Message').fill('I was charged twice, please send my money back.');
  await page.getByRole('button', { name: 'Submit request' }).click();
  await page.waitForURL(/\/requests\/\d+$/);
}

for (const javaScript of [true, false]) {
  test(`a rule tags and assigns a 'refund' ticket (JavaScript ${javaScript ? 'on' : 'off'})`, async ({ browser }) => {
    test.setTimeout(300_000);
    const admin = await newContext(browser, { javaScript });
    const slug = await newWorkspace(admin.page, { label: 'rules' });
    const agent = await signedInContext(browser, uniqueEmail('ruleagent'), { javaScript });
    const agentId = await userId(agent.page);
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    await serviceRest('memberships', {
      method: 'POST',
      body: JSON.stringify({ workspace_id: workspace.id, user_id: agentId, role: 'agent' }),
    });
    await serviceRest('tags', { method: 'POST', body: JSON.stringify({ workspace_id: workspace.id, name: 'refund' }) });
    const [{ display_name: agentName }] = await serviceRest(`profiles?user_id=eq.${agentId}&select=display_name`);

    const a = admin.page;
    await a.goto(`/w/${slug}/settings`);
    await a.getByRole('navigation', { name: 'Workspace administration' }).getByRole('link', { name: 'Rules' }).click();
    await expect(a.getByRole('heading', { name: 'Rules', level: 1 })).toBeVisible();
    await expect(a.getByText('No rules yet.')).toBeVisible();

    const form = a.locator('form').filter({ has: a.getByRole('button', { name: 'Add rule' }) });
    // No name: refused at the name, the conditions and actions kept.
    await form.getByLabel('Condition 1').selectOption('subject:contains');
    await form.getByLabel('Value 1', { exact: true }).fill('refund, money back');
    await form.getByLabel('Action 1', { exact: true }).selectOption('add_tag');
    await form.getByLabel('Action value 1').fill('refunds');
    await form.getByLabel('Action 2', { exact: true }).selectOption('assign');
    await form.getByLabel('Action value 2').fill(agentName);
    await form.getByRole('button', { name: 'Add rule' }).click();
    const name = a.locator('#new-name');
    await expect(name).toHaveAttribute('aria-invalid', 'true');
    await expect(a.getByText('Enter a name of 1 to 80 characters.')).toBeVisible();
    await expect(a.locator('#new-c0_value')).toHaveValue('refund, money back');
    await expect(a.locator('#new-a1_value')).toHaveValue(agentName);

    // A tag that doesn't exist: refused at its field, kept.
    await a.locator('#new-name').fill('Refunds');
    await a.getByRole('button', { name: 'Add rule' }).click();
    await expect(a.locator('#new-a0_value')).toHaveAttribute('aria-invalid', 'true');
    await expect(a.getByText('There’s no tag of that name here.')).toBeVisible();
    await expect(a.locator('#new-a0_value')).toHaveValue('refunds');
    await expect(a.locator('#new-name')).toHaveValue('Refunds');

    await a.locator('#new-a0_value').fill('refund');
    await a.getByRole('button', { name: 'Add rule' }).click();
    await expect(a.getByText('Rule added.')).toBeVisible();
    const rule = a.getByTestId('rule');
    await expect(rule).toHaveCount(1);
    const summary = rule.getByTestId('rule-summary');
    await expect(summary.locator('dd')).toHaveText([
      'A ticket is created',
      'all of: Subject contains “refund, money back”',
      `Add tag “refund”; Assign to “${agentName}”`,
    ]);
    if (javaScript) {
      await expectNoViolations(a);
      await screenshots(a, 'settings-rules');
    }

    // A customer opens a refund request on the portal, and an unrelated one.
    const customer = await signedInContext(browser, uniqueEmail('rulecustomer'), { javaScript });
    await openRequest(customer.page, slug, 'Refund for a double charge');
    await openRequest(customer.page, slug, 'Where is my parcel');

    // The agent finds the refund request among theirs, tagged; the other one is nobody's.
    const g = agent.page;
    await g.goto(`/w/${slug}?view=mine`);
    const rows = g.getByTestId('inbox-row');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('Refund for a double charge');
    await expect(rows.first().locator('[data-tag]')).toHaveText(['refund']);
    await g.goto(`/w/${slug}?view=unassigned`);
    await expect(g.getByTestId('inbox-row')).toHaveText([/Where is my parcel/]);
    await g.goto(`/w/${slug}/tickets/1`);
    const history = g.locator('.hd-history');
    await expect(history).toContainText('Rule “Refunds” ran');
    await expect(history).toContainText('Tend added the tag refund');
    await expect(history).toContainText(`Tend assigned it to ${agentName}`);

    // "Test this rule" on the saved rule lists the request it matched, not the other.
    await a.reload();
    await a.getByTestId('rule').getByText('Edit or test').click();
    await a.getByTestId('rule').getByRole('button', { name: 'Test this rule' }).click();
    const preview = a.getByTestId('rule-preview');
    await expect(preview.getByRole('link')).toHaveText(['#1 Refund for a double charge']);
    if (javaScript) await expectNoViolations(a);

    // Switched off, it lets the next refund request be.
    await a.getByTestId('rule').getByRole('button', { name: 'Switch off' }).click();
    await expect(a.getByText('Rule switched off.')).toBeVisible();
    await expect(a.getByTestId('rule')).toContainText('Off');
    await openRequest(customer.page, slug, 'Another refund');
    await g.goto(`/w/${slug}?view=unassigned`);
    await expect(g.getByTestId('inbox-row').filter({ hasText: 'Another refund' })).toHaveCount(1);

    // Deleted after a confirmation; the history keeps its name.
    // The summary names the rule for screen readers ("Delete Refunds").
    await a
      .getByTestId('rule')
      .locator('summary', { hasText: /^Delete/ })
      .click();
    await a.getByRole('button', { name: 'Delete for good' }).click();
    await expect(a.getByText('Rule deleted.')).toBeVisible();
    await expect(a.getByText('No rules yet.')).toBeVisible();
    await g.goto(`/w/${slug}/tickets/1`);
    await expect(g.locator('.hd-history')).toContainText('Rule “Refunds” ran');

    for (const c of [admin, agent, customer]) await c.context.close();
  });
}
