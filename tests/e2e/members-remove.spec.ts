// Removing a member (docs/product.md §2 /w/:slug/settings/members, issue 25 item 9): one click only
// asks; the confirmation says how many of their tickets aren't closed and offers to hand them to
// another member or leave them unassigned; Cancel changes nothing. With JavaScript and without.
import { randomUUID } from 'node:crypto';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  service,
  serviceRest,
  test,
} from './fixtures.ts';

/** A member made by the service role: an account (named by its address) and a membership. */
async function addMember(workspaceId: string, name: string) {
  const user = await service('/auth/v1/admin/users', {
    method: 'POST',
    body: JSON.stringify({ email: `${name}@example.com`, email_confirm: true }),
  });
  await serviceRest('memberships', {
    method: 'POST',
    body: JSON.stringify({ workspace_id: workspaceId, user_id: user.id, role: 'agent' }),
  });
  return user.id as string;
}

for (const javaScript of [true, false]) {
  test(`removing a member asks first and hands their tickets on (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const { context, page } = await newContext(browser, { javaScript });
    const slug = await newWorkspace(page, { label: 'remove' });
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    const tag = randomUUID().slice(0, 8);
    const leaving = await addMember(workspace.id, `leaving-${tag}`);
    const staying = await addMember(workspace.id, `staying-${tag}`);
    await serviceRest('tickets', {
      method: 'POST',
      body: JSON.stringify(
        [1, 2, 3].map((i) => ({
          workspace_id: workspace.id,
          requester_id: staying,
          assignee_id: leaving,
          subject: `Held by the leaver ${i}`,
        })),
      ),
    });

    await page.goto(`/w/${slug}/settings/members`);
    const row = page.getByTestId('member').filter({ hasText: `leaving-${tag}` });
    // A click asks, and Cancel leaves everything as it was.
    await row.getByRole('link', { name: `Remove leaving-${tag}` }).click();
    const confirm = page.getByRole('form', { name: `Remove leaving-${tag} from ${slug}?` });
    await expect(confirm).toContainText('3 tickets that aren’t closed are assigned to them.');
    if (javaScript) {
      await expectNoViolations(page);
      await screenshots(page, 'members-remove');
    }
    await confirm.getByRole('link', { name: 'Cancel' }).click();
    await expect(confirm).toHaveCount(0);
    await expect(page.getByTestId('member')).toHaveCount(3);

    await row.getByRole('link', { name: `Remove leaving-${tag}` }).click();
    await confirm.getByLabel('Their tickets go to').selectOption({ label: `staying-${tag}` });
    await confirm.getByRole('button', { name: `Remove leaving-${tag}` }).click();
    await expect(page.getByRole('status')).toHaveText('Member removed.');
    await expect(page.getByTestId('member')).toHaveCount(2);
    const tickets: { assignee_id: string }[] = await serviceRest(
      `tickets?workspace_id=eq.${workspace.id}&select=assignee_id`,
    );
    expect(tickets.map((t) => t.assignee_id)).toEqual([staying, staying, staying]);
    await context.close();
  });
}
