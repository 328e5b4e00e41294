// The help center for the team (docs/product.md#the-help-center-for-the-team): every member — an agent as well as an
// admin — finds the editor from the header of the workspace's pages; two members editing one article see each
// other ("Also editing: …"), named from what the database vouches for
// (docs/decisions/037-presence-the-server-vouches-for.md).
import { randomUUID } from 'node:crypto';
import {
  expect,
  expectNoViolations,
  screenshots,
  serviceRest,
  signedInContext,
  test,
  uniqueEmail,
  userId,
} from './fixtures.ts';

test.describe('help center for the team', () => {
  test.setTimeout(120_000);

  test('an agent finds the help center in the header; two members editing an article see each other', async ({
    browser,
  }) => {
    const agentEmail = uniqueEmail('help-agent');
    const [adminSide, agentSide] = await Promise.all([
      (async () => {
        const { context, page } = await signedInContext(browser, uniqueEmail('help-owner'), { live: true });
        return { context, page };
      })(),
      signedInContext(browser, agentEmail, { live: true }),
    ]);
    const { page: admin } = adminSide;
    const slug = `team-${randomUUID().slice(0, 8)}`;
    await admin.goto('/onboarding');
    await admin.getByLabel('Workspace name').fill(slug);
    await admin.getByLabel('Address').fill(slug);
    await admin.getByRole('button', { name: 'Create workspace' }).click();
    await expect(admin).toHaveURL(new RegExp(`/w/${slug}$`));
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    await serviceRest('memberships', {
      method: 'POST',
      body: JSON.stringify({ workspace_id: workspace.id, user_id: await userId(agentSide.page), role: 'agent' }),
    });
    const [article] = await serviceRest('help_articles', {
      method: 'POST',
      body: JSON.stringify({ workspace_id: workspace.id, title: 'Returns, step by step', body: 'Pack it.' }),
    });

    // The agent, in the inbox: "Help center" in the header leads to the articles and the editor.
    const agent = agentSide.page;
    await agent.goto(`/w/${slug}`);
    const header = agent.getByRole('navigation', { name: 'Account' });
    await expect(header.getByRole('link', { name: 'Members' })).toHaveCount(0);
    await screenshots(agent, 'inbox-header-agent');
    await header.getByRole('link', { name: 'Help center' }).click();
    await expect(agent.getByRole('heading', { level: 1, name: 'Help center' })).toBeVisible();
    await agent.getByRole('link', { name: 'Returns, step by step' }).click();
    await expect(agent.getByLabel('Title')).toHaveValue('Returns, step by step');
    await expect(agent.getByTestId('live-status')).toHaveText('Live');

    // The admin opens the same article: each sees the other, by name.
    await admin.goto(`/w/${slug}`);
    await expect(
      admin.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Help center' }),
    ).toBeVisible();
    await admin.goto(`/w/${slug}/help/${article.id}`);
    await expect(admin.getByTestId('live-editors')).toContainText(/Also editing: help-agent-/);
    await expect(agent.getByTestId('live-editors')).toContainText(/Also editing: help-owner-/);
    await expectNoViolations(agent);
    await screenshots(agent, 'help-editor-also-editing');

    // The admin leaves: the agent's bar names nobody.
    await admin.goto(`/w/${slug}`);
    await expect(agent.getByTestId('live-editors')).not.toContainText('Also editing');

    // Customers' pages carry no link to the agents' help center.
    await agent.goto(`/support/${slug}`);
    await expect(
      agent.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Help center' }),
    ).toHaveCount(0);
    await Promise.all([adminSide.context.close(), agentSide.context.close()]);
  });
});
