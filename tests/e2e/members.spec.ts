// Members, invitations and settings end to end (docs/product.md §2): a new admin invites an agent, the email
// arrives, the invitee follows its link, signs in and lands in the inbox as an agent; the last admin
// can't step down; an invitation for another address or a revoked one is refused; agents are kept
// out. With JavaScript and without. Each run makes its own admin and workspace (the seeded
// accounts get one code a minute, and other specs sign them in).
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { messagesTo } from '../../scripts/lib/mail.ts';
import {
  env,
  expect,
  expectNoViolations,
  newContext,
  screenshots,
  signIn,
  signInByForm,
  test,
  uniqueEmail,
} from './fixtures.ts';

/** The link in the newest invitation email to `email` (notify's, to /invite/:token), once it has come. */
async function invitationLink(email: string): Promise<string> {
  let href: string | undefined;
  await expect
    .poll(
      async () => {
        const [newest] = (await messagesTo(env.mailUrl, email, { notifications: true })).filter((m) =>
          m.Subject.includes('invited you'),
        );
        if (!newest) return false;
        const mail = await (await fetch(`${env.mailUrl}/api/v1/message/${newest.ID}`)).json();
        href = /href="([^"]*\/invite\/[^"]*)"/.exec(mail.HTML)?.[1];
        return !!href && mail.Text.includes(href);
      },
      { message: `an invitation email to ${email}` },
    )
    .toBe(true);
  return href!;
}

const invitePath = (link: string) => new URL(link).pathname;

async function invite(admin: Page, email: string, role: 'Agent' | 'Admin' = 'Agent') {
  await admin.getByLabel('Email address').fill(email);
  await admin.getByLabel('Role', { exact: true }).selectOption({ label: role });
  await admin.getByRole('button', { name: 'Send invitation' }).click();
  // A refusal (an alert) fails here with its message.
  await expect(admin.getByRole('status').or(admin.getByRole('alert'))).toHaveText('Invitation sent.');
  await expect(admin.getByLabel('Email address')).toHaveValue('');
}

for (const javaScript of [true, false]) {
  test(`an admin invites an agent, who follows the email's link into the inbox (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }, testInfo) => {
    test.setTimeout(120_000);
    // The address once per stack (Auth sends an address one email a minute), fresh ones otherwise.
    const invitee =
      javaScript && testInfo.repeatEachIndex === 0 && testInfo.retry === 0
        ? 'new-agent@acme.test'
        : uniqueEmail('new-agent');

    // A new admin with a new workspace.
    const { context: adminContext, page: admin } = await newContext(browser, { javaScript });
    const { id, slug, email: adminEmail } = await newWorkspace(admin);

    // An empty workspace says what to do first; its admin gets the admin links in the header.
    const header = (page: Page) => page.getByRole('navigation', { name: 'Account' });
    await expect(admin.getByTestId('first-run')).toContainText('Invite your team');
    await expect(admin.getByTestId('first-run-portal')).toHaveText(`${env.baseURL}/support/${slug}`);
    await expect(header(admin).getByRole('link', { name: 'Settings' })).toBeVisible();
    if (javaScript) {
      await expectNoViolations(admin);
      await screenshots(admin, 'first-run');
    }
    await header(admin).getByRole('link', { name: 'Members' }).click();
    await expect(admin).toHaveURL(new RegExp(`/w/${slug}/settings/members$`));

    await expect(admin.getByRole('heading', { level: 1 })).toHaveText('Members');
    await expect(admin.getByText('No pending invitations.')).toBeVisible();

    // A wrong address comes back with the catalogue's message and what was typed.
    await admin.getByLabel('Email address').fill('not-an-address');
    await admin.getByRole('button', { name: 'Send invitation' }).click();
    await expect(admin.locator('#invite-email-error')).toHaveText('Enter a valid email address.');
    await expect(admin.getByLabel('Email address')).toHaveValue('not-an-address');

    await invite(admin, invitee);
    const row = admin.getByTestId('invitation').filter({ hasText: invitee });
    await expect(row).toContainText(/Agent · expires \d+ \w+ \d{4}/);
    if (javaScript) {
      await expectNoViolations(admin);
      await screenshots(admin, 'members');
    }

    // The last admin can't step down.
    const me = admin.getByTestId('member').filter({ hasText: '(you)' });
    await me.getByRole('combobox').selectOption('agent');
    await me.getByRole('button', { name: 'Change role' }).click();
    await expect(me.getByRole('alert')).toHaveText('A workspace needs at least one admin.');

    // The invitee opens the email's link (on the app's origin) in a browser without a session, signs in
    // with a code and comes back to the invitation.
    const link = await invitationLink(invitee);
    expect(new URL(link).origin).toBe(env.baseURL);
    expect(invitePath(link)).toMatch(/^\/invite\/[A-Za-z0-9_-]{43}$/);
    const { context: inviteeContext, page: agent } = await newContext(browser, { javaScript });
    await signIn(agent, { email: invitee, path: link, javaScript });
    await expect(agent).toHaveURL(new RegExp(`${invitePath(link)}$`));
    await expect(agent.getByTestId('invite-email')).toHaveText(invitee);
    // It names the workspace and who invited.
    await expect(agent.getByRole('heading', { level: 1 })).toHaveText(`Join Team ${id} on Tend`);
    await expect(agent.getByTestId('invitation')).toContainText(
      `${adminEmail.split('@')[0]} invited you to Team ${id} as an agent.`,
    );
    if (javaScript) {
      await expectNoViolations(agent);
      await screenshots(agent, 'invite');
    }
    await agent.getByRole('button', { name: 'Accept invitation' }).click();
    await expect(agent).toHaveURL(new RegExp(`/w/${slug}$`));
    await expect(agent.getByRole('heading', { level: 1 })).toHaveText('Inbox');
    expect((await agent.request.get(`/w/${slug}/export.csv?view=all`)).status()).toBe(403);
    // Agents get no admin links, and no "invite your team".
    await expect(header(agent).getByRole('link', { name: 'Members' })).toHaveCount(0);
    await expect(agent.getByTestId('first-run')).not.toContainText('Invite your team');

    // The link is spent: its page says so at once.
    await agent.goto(invitePath(link));
    await expect(agent.getByRole('button', { name: 'Accept invitation' })).toHaveCount(0);
    await expect(agent.getByRole('alert')).toHaveText(
      'This invitation is no longer valid. Ask an admin for a new one.',
    );

    // An agent may not see the members page.
    const forbidden = await agent.goto(`/w/${slug}/settings/members`);
    expect(forbidden?.status()).toBe(403);

    // The admin sees the new agent, and no pending invitation.
    await admin.goto(`/w/${slug}/settings/members`);
    await expect(admin.getByTestId('member').filter({ hasText: invitee.split('@')[0] })).toContainText('Agent since');
    await expect(admin.getByText('No pending invitations.')).toBeVisible();

    // An invitation for another address: refused for this account, and after a revoke invalid for anyone.
    const other = uniqueEmail('other');
    await invite(admin, other);
    const otherPath = invitePath(await invitationLink(other));
    await agent.goto(otherPath);
    await agent.getByRole('button', { name: 'Accept invitation' }).click();
    await expect(agent.getByRole('alert')).toHaveText('This invitation was sent to another email address.');
    const otherRow = admin.getByTestId('invitation').filter({ hasText: other });
    // "Resend" mails a new link; the old one no longer works.
    await otherRow.getByRole('button', { name: /^Resend/ }).click();
    await expect(admin.getByRole('status')).toHaveText('Invitation sent again. The new link works for 7 days.');
    await expect.poll(async () => invitePath(await invitationLink(other))).not.toBe(otherPath);
    await agent.goto(otherPath);
    await expect(agent.getByRole('alert')).toHaveText(
      'This invitation is no longer valid. Ask an admin for a new one.',
    );
    await otherRow.getByRole('button', { name: /^Revoke/ }).click();
    await expect(admin.getByRole('status')).toHaveText('Invitation revoked.');
    await expect(otherRow).toHaveCount(0);

    // The admin makes the agent an admin, then removes them.
    const agentRow = admin.getByTestId('member').filter({ hasText: invitee.split('@')[0] });
    await agentRow.getByRole('combobox').selectOption('admin');
    await agentRow.getByRole('button', { name: 'Change role' }).click();
    await expect(admin.getByRole('status')).toHaveText('Role changed.');
    await expect(agentRow).toContainText('Admin since');
    // Removing asks first (a link, so also without JavaScript).
    await agentRow.getByRole('link', { name: /^Remove/ }).click();
    const confirm = admin.getByRole('form', { name: /^Remove .* from / });
    await expect(confirm).toContainText('No tickets are assigned to them, other than closed ones.');
    await confirm.getByRole('button', { name: /^Remove / }).click();
    await expect(admin.getByRole('status')).toHaveText('Member removed.');
    await expect(admin.getByTestId('member')).toHaveCount(1);
    expect((await agent.goto(`/w/${slug}`))?.status()).toBe(404);

    await adminContext.close();
    await inviteeContext.close();
  });
}

for (const javaScript of [true, false]) {
  test(`the limits speak plainly: a member is not invited, the sixth email to one address waits (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const { context, page: admin } = await newContext(browser, { javaScript });
    const { slug, email: me } = await newWorkspace(admin);
    await admin.goto(`/w/${slug}/settings/members`);

    // Someone who already belongs: said so at the form, the address kept, no email.
    await admin.getByLabel('Email address').fill(me.toUpperCase());
    await admin.getByRole('button', { name: 'Send invitation' }).click();
    await expect(admin.locator('#invite-error')).toHaveText('That person is already a member of this workspace.');
    await expect(admin.getByLabel('Email address')).toHaveValue(me.toUpperCase());
    await expect(admin.getByText('No pending invitations.')).toBeVisible();
    if (javaScript) {
      await expectNoViolations(admin);
      await screenshots(admin, 'members-already-member');
    }

    // An invitation and four resends, one click after the other on the same page; the sixth is refused
    // with the wait, and the page no longer says the last one was sent.
    const invitee = uniqueEmail('often');
    await invite(admin, invitee);
    const row = admin.getByTestId('invitation').filter({ hasText: invitee });
    const resend = async () => {
      await Promise.all([
        admin.waitForResponse((r) => r.request().method() === 'POST'),
        row.getByRole('button', { name: /^Resend/ }).click(),
      ]);
      await admin.waitForLoadState('networkidle');
    };
    for (let n = 2; n <= 5; n++) {
      await resend();
      await expect(admin.getByRole('status')).toHaveText('Invitation sent again. The new link works for 7 days.');
      await expect(row.getByRole('alert')).toHaveCount(0);
    }
    await resend();
    await expect(row.getByRole('alert')).toHaveText(/^Too many attempts\. Try again in (60|59) minutes\.$/);
    await expect(admin.getByRole('status')).toHaveCount(0);
    if (javaScript) {
      await expectNoViolations(admin);
      await screenshots(admin, 'members-limit');
    }
    await context.close();
  });
}

async function newWorkspace(page: Page) {
  const id = randomUUID().slice(0, 8);
  const email = uniqueEmail('admin');
  await signInByForm(page, email);
  await page.goto('/onboarding');
  await page.getByLabel('Workspace name').fill(`Team ${id}`);
  await page.getByLabel('Address').fill(`team-${id}`);
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await expect(page).toHaveURL(new RegExp(`/w/team-${id}$`));
  return { id, slug: `team-${id}`, email };
}

for (const javaScript of [true, false]) {
  test(`an admin renames the workspace and its address; old links redirect (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const { context, page } = await newContext(browser, { javaScript });
    const { id, slug } = await newWorkspace(page);
    await page.goto(`/w/${slug}/settings`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Settings');
    await expect(page.getByLabel('Portal address')).toHaveValue(`${env.baseURL}/support/${slug}`);
    await expect(page.getByLabel('Time zone')).toHaveValue('UTC');
    if (javaScript) {
      await expectNoViolations(page);
      await screenshots(page, 'settings');
    }

    // An address in use: refused at the field, with what was typed kept.
    await page.getByLabel('Workspace name').fill(`Renamed ${id}`);
    await page.getByLabel('Address', { exact: true }).fill('globex');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.locator('#settings-slug-error')).toHaveText('That address is taken.');
    await expect(page.getByLabel('Address', { exact: true })).toHaveValue('globex');
    await expect(page.getByLabel('Workspace name')).toHaveValue(`Renamed ${id}`);
    if (javaScript) await expectNoViolations(page);

    const renamed = `renamed-${id}`;
    await page.getByLabel('Address', { exact: true }).fill(renamed);
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${renamed}/settings\\?done=saved$`));
    await expect(page.getByRole('status')).toHaveText('Saved.');
    await expect(page.getByLabel('Address', { exact: true })).toHaveValue(renamed);
    await expect(page.getByLabel('Time zone')).toHaveValue('Europe/Berlin');
    await expect(page.getByLabel('Portal address')).toHaveValue(`${env.baseURL}/support/${renamed}`);

    // Old links lead to the new address.
    await page.goto(`/w/${slug}?view=all`);
    await expect(page).toHaveURL(new RegExp(`/w/${renamed}\\?view=all$`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Inbox');
    await page.goto(`/support/${slug}`);
    await expect(page).toHaveURL(new RegExp(`/support/${renamed}$`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Renamed ${id}`);

    // The inbox as CSV: a request whose subject is a formula comes out neutralised and quoted.
    const subject = '=HYPERLINK("http://evil.example","x")';
    await page.goto(`/support/${renamed}/new`);
    await page.getByLabel('Subject').fill(subject);
    await page.getByLabel('Message').fill('Testing the export, with a comma.');
    await page.getByRole('button', { name: 'Submit request' }).click();
    await expect(page).toHaveURL(new RegExp(`/support/${renamed}/requests/1$`));
    await page.goto(`/w/${renamed}?view=all`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^${renamed}-tickets-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
    const response = await page.request.get(`/w/${renamed}/export.csv?view=all`);
    expect(response.headers()['content-type']).toBe('text/csv; charset=utf-8');
    const body = await response.body();
    expect([...body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = body.subarray(3).toString('utf8').split('\r\n');
    expect(lines[0]).toBe('Number,Subject,Status,Priority,Requester,Assignee,Tags,Last activity');
    expect(lines[1]).toMatch(
      /^1,"'=HYPERLINK\(""http:\/\/evil\.example"",""x""\)",New,Normal,admin-[0-9a-f]{8},,,\d{4}-/,
    );
    expect(lines.slice(2)).toEqual(['']);
    // A view without it: only the header.
    const pending = await page.request.get(`/w/${renamed}/export.csv?view=pending`);
    expect((await pending.text()).split('\r\n')).toEqual([
      '\uFEFFNumber,Subject,Status,Priority,Requester,Assignee,Tags,Last activity',
      '',
    ]);
    await context.close();
  });
}
