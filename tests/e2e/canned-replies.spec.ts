// Canned replies end to end (docs/product.md#canned-replies-in-the-composer): an admin writes one with placeholders at
// /w/:slug/settings/replies (refused input comes back at the field, kept; preview; edit; delete after
// a confirmation), an agent inserts it on a ticket with the placeholders filled, edits it and sends
// it, and the customer reads the sent text. With JavaScript (the keyboard-driven picker) and without
// (a select and "Insert", filled in by the server). Fresh accounts and a workspace of their own: the
// seeded accounts get one code a minute and other specs sign them in.
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import {
  env,
  expect,
  expectNoViolations,
  screenshots,
  serviceRest,
  signedInContext,
  test,
  uniqueEmail,
  userId,
} from './fixtures.ts';

const BODY =
  'Hi {{requester.name}},\n\nSorry that #{{ticket.number}} ({{ ticket.subject }}) arrived damaged. ' +
  'A replacement is on its way to {{requester.email}}.\n\n{{agent.name}}, {{workspace.name}}';

for (const javaScript of [true, false]) {
  test(`an admin writes a canned reply; an agent inserts it filled in, edits and sends it (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const tag = randomUUID().slice(0, 8);
    const slug = `canned-${tag}`;
    const [adminEmail, agentEmail, customerEmail] = ['admin', 'agent', 'casey'].map((who) => uniqueEmail(who));
    const [admin, agent, customer] = await Promise.all(
      [adminEmail, agentEmail, customerEmail].map((email) => signedInContext(browser, email, { javaScript })),
    );
    const local = (email: string) => email.split('@')[0];

    // The admin's workspace, the agent in it, and a customer's request there.
    await admin.page.goto('/onboarding');
    await admin.page.getByLabel('Workspace name').fill(`Canned ${tag}`);
    await admin.page.getByLabel('Address').fill(slug);
    await admin.page.getByRole('button', { name: 'Create workspace' }).click();
    await admin.page.waitForURL(`/w/${slug}`);
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    await serviceRest('memberships', {
      method: 'POST',
      body: JSON.stringify({ workspace_id: workspace.id, user_id: await userId(agent.page), role: 'agent' }),
    });
    const subject = `Mug arrived broken ${tag}`;
    await customer.page.goto(`/support/${slug}/new`);
    await customer.page.getByLabel('Subject').fill(subject);
    await customer.page.getByLabel('Message').fill('The handle came off in the box.');
    await customer.page.getByRole('button', { name: 'Submit request' }).click();
    await customer.page.waitForURL(/\/requests\/1$/);

    // The admin finds the page from the other admin pages.
    const a = admin.page;
    await a.goto(`/w/${slug}/settings/members`);
    await a
      .getByRole('navigation', { name: 'Workspace administration' })
      .getByRole('link', { name: 'Canned replies' })
      .click();
    await expect(a).toHaveURL(new RegExp(`/w/${slug}/settings/replies$`));
    await expect(a.getByRole('heading', { level: 1 })).toHaveText('Canned replies');
    await expect(a.getByText('No canned replies yet.')).toBeVisible();
    const form = a.getByRole('region', { name: 'New canned reply' });

    // Refused: no title, a misspelt placeholder. Both at their field, what was typed kept.
    await form.getByLabel('Reply').fill('Hi {{requester.nmae}}!');
    await form.getByRole('button', { name: 'Add canned reply' }).click();
    await expect(form.locator('#new-title-error')).toHaveText('Enter a title of 1 to 80 characters.');
    await expect(form.locator('#new-body-error')).toHaveText(
      `"{{requester.nmae}}" isn't a placeholder. Use one from the list.`,
    );
    await expect(form.getByLabel('Reply')).toHaveValue('Hi {{requester.nmae}}!');
    if (javaScript) await expectNoViolations(a);

    // The preview fills the placeholders for an example ticket; then it is added.
    await form.getByLabel('Title').fill('Damaged item');
    await form.getByLabel('Reply').fill(BODY);
    await form.getByRole('button', { name: 'Preview' }).click();
    await expect(form.getByTestId('canned-preview')).toContainText(
      `Hi Jordan Lee,\n\nSorry that #1042 (My order hasn't arrived) arrived damaged. A replacement is on its way to jordan.lee@example.com.\n\n${local(adminEmail)}, Canned ${tag}`,
    );
    await expect(form.getByLabel('Title')).toHaveValue('Damaged item');
    await form.getByRole('button', { name: 'Add canned reply' }).click();
    await expect(a.getByRole('status')).toHaveText('Canned reply added.');
    await expect(form.getByLabel('Title')).toHaveValue('');
    const saved = a.getByTestId('canned-reply');
    await expect(saved).toHaveCount(1);
    await expect(saved.first()).toContainText(`Added by ${local(adminEmail)} on`);

    // A title in use, in another case: refused at the field, kept.
    await form.getByLabel('Title').fill('DAMAGED ITEM');
    await form.getByLabel('Reply').fill('Another one.');
    await form.getByRole('button', { name: 'Add canned reply' }).click();
    await expect(form.locator('#new-title-error')).toHaveText('A canned reply with that title already exists.');
    await expect(form.getByLabel('Title')).toHaveValue('DAMAGED ITEM');
    await expect(form.getByLabel('Reply')).toHaveValue('Another one.');

    // Two more; one of them deleted after the confirmation.
    for (const [title, body] of [
      ['Need the order number', 'Could you send us your order number, {{requester.name}}?'],
      ['Temporary', 'Delete me.'],
    ]) {
      await form.getByLabel('Title').fill(title);
      await form.getByLabel('Reply').fill(body);
      await form.getByRole('button', { name: 'Add canned reply' }).click();
      await expect(a.getByRole('status')).toHaveText('Canned reply added.');
      await expect(a.getByTestId('canned-reply').filter({ hasText: title })).toHaveCount(1);
    }
    const temporary = a.getByTestId('canned-reply').filter({ hasText: 'Temporary' });
    await temporary.locator('summary').click();
    await expect(temporary).toContainText('Delete “Temporary”? Agents can no longer insert it.');
    await temporary.getByRole('button', { name: 'Delete for good Temporary' }).click();
    await expect(a.getByRole('status')).toHaveText('Canned reply deleted.');
    await expect(a.getByTestId('canned-reply')).toHaveCount(2);

    // Edited: the form in place, a refusal kept, then saved with who and when.
    const damaged = a.getByTestId('canned-reply').filter({ hasText: 'Damaged item' });
    await damaged.getByRole('link', { name: 'Edit Damaged item' }).click();
    const edit = a.getByRole('form', { name: 'Edit Damaged item' });
    await edit.getByLabel('Title').fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect(edit.locator('[id$="-title-error"]')).toHaveText('Enter a title of 1 to 80 characters.');
    await edit.getByLabel('Title').fill('Damaged item');
    await edit.getByLabel('Reply').fill(`${BODY}\n\nP.S. Keep the broken one.`);
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect(a.getByRole('status')).toHaveText('Canned reply saved.');
    await expect(damaged).toContainText(`edited by ${local(adminEmail)} on`);
    await expect(damaged).toContainText('P.S. Keep the broken one.');
    if (javaScript) {
      await expectNoViolations(a);
      await screenshots(a, 'canned-replies-settings');
    }

    // Agents may use canned replies, not manage them.
    const g = agent.page;
    expect((await g.goto(`/w/${slug}/settings/replies`))?.status()).toBe(403);
    const post = await g.request.post(`/w/${slug}/settings/replies`, {
      form: { intent: 'create', title: 'By an agent', body: 'Nope.' },
      headers: { Origin: env.baseURL },
    });
    expect(post.status()).toBe(403);

    // The agent's composer: what was typed, then the reply, filled in for this ticket.
    await g.goto(`/w/${slug}/tickets/1`);
    const composer = g.locator('form.hd-composer');
    const message = composer.getByLabel('Message', { exact: true });
    await message.fill('Thanks for writing in.');
    const filled =
      `Hi ${local(customerEmail)},\n\nSorry that #1 (${subject}) arrived damaged. ` +
      `A replacement is on its way to ${customerEmail}.\n\n${local(agentEmail)}, Canned ${tag}\n\nP.S. Keep the broken one.`;
    if (javaScript) {
      const picker = composer.getByRole('combobox', { name: 'Canned reply' });
      const list = composer.getByRole('listbox', { name: 'Canned replies' });
      // Nothing matches: said so; Escape closes, again clears.
      const none = composer.getByText('No canned reply matches “zzz”.');
      await picker.fill('zzz');
      await expect(none).toBeVisible();
      await picker.press('Escape');
      await expect(none).toHaveCount(0);
      await picker.press('Escape');
      await expect(picker).toHaveValue('');
      // Arrow keys browse the whole list, by title.
      await picker.press('ArrowDown');
      await expect(list.getByRole('option')).toHaveText([/^Damaged item/, /^Need the order number/]);
      await expect(picker).toHaveAttribute('aria-expanded', 'true');
      await picker.press('ArrowDown');
      await expect(list.getByRole('option', { selected: true })).toHaveText(/^Need the order number/);
      const selected = await list.getByRole('option', { selected: true }).getAttribute('id');
      await expect(picker).toHaveAttribute('aria-activedescendant', selected!);
      await picker.press('Escape');
      await expect(list).toBeHidden();
      // Typing filters (a title first, then the text: "replacement" is only in a text).
      await picker.fill('replacement');
      await expect(list.getByRole('option')).toHaveText([/^Damaged item/]);
      await expectNoViolations(g);
      await screenshots(g, 'composer-picker-open', async () => {
        await picker.fill('');
        await picker.press('ArrowDown');
        await expect(list).toBeVisible();
      });
      // Enter inserts the highlighted reply where the cursor was in the message (its end here).
      await picker.fill('dam');
      await picker.press('Enter');
      await expect(list).toBeHidden();
      await expect(message).toBeFocused();
      await expect(message).toHaveValue(`Thanks for writing in.${filled}`);
      // Still editable where the cursor was left: right after the inserted text.
      await g.keyboard.type(' See you!');
      await expect(message).toHaveValue(`Thanks for writing in.${filled} See you!`);
    } else {
      // A reply that is gone meanwhile: refused at the picker, the draft kept.
      await composer.getByLabel('Canned reply', { exact: true }).selectOption({ label: 'Need the order number' });
      await serviceRest(`canned_replies?title=eq.Need%20the%20order%20number&workspace_id=eq.${workspace.id}`, {
        method: 'DELETE',
      });
      await composer.getByRole('button', { name: 'Insert' }).click();
      await expect(composer.getByRole('alert')).toHaveText("We couldn't find that.");
      await expect(message).toHaveValue('Thanks for writing in.');
      await composer.getByLabel('Canned reply', { exact: true }).selectOption({ label: 'Damaged item' });
      await composer.getByRole('button', { name: 'Insert' }).click();
      await expect(message).toHaveValue(`Thanks for writing in.\n\n${filled}`);
      await message.press('Control+End');
      await message.pressSequentially(' See you!');
      await expect(message).toHaveValue(`Thanks for writing in.\n\n${filled} See you!`);
    }
    await composer.getByRole('button', { name: 'Send', exact: true }).click();
    const sent = javaScript
      ? `Thanks for writing in.${filled} See you!`
      : `Thanks for writing in.\n\n${filled} See you!`;
    await expect(g.locator('[data-kind="reply"]').last()).toContainText('P.S. Keep the broken one. See you!');
    await expect(message).toHaveValue('');

    // The filled-in replies are for the workspace's members only.
    const filledFor = (page: Page) => page.request.get(`/w/${slug}/tickets/1/canned-replies`, { maxRedirects: 0 });
    const asAgent = await filledFor(g);
    expect(asAgent.status()).toBe(200);
    expect((await asAgent.json()).replies.map((r: { title: string }) => r.title)).toEqual(
      // Without JavaScript the second one was deleted above.
      javaScript ? ['Damaged item', 'Need the order number'] : ['Damaged item'],
    );
    expect((await filledFor(customer.page)).status()).toBe(404);
    const visitor = await browser.newContext({ baseURL: env.baseURL });
    const anonymous = await visitor.request.get(`/w/${slug}/tickets/1/canned-replies`, { maxRedirects: 0 });
    expect([anonymous.status(), anonymous.headers().location]).toEqual([
      302,
      `/login?redirectTo=${encodeURIComponent(`/w/${slug}/tickets/1/canned-replies`)}`,
    ]);
    await visitor.close();

    // The customer reads the reply as sent.
    await customer.page.goto(`/support/${slug}/requests/1`);
    const replies = customer.page.locator('[data-kind="reply"]');
    await expect(replies.last().locator('.hd-message__body')).toHaveText(sent);

    for (const c of [admin, agent, customer]) await c.context.close();
  });
}
