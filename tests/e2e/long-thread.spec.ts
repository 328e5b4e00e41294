// A 1 000-message ticket (issue 27 item 12; docs/product.md#long-threads): the agent's page and the requester's
// portal show the newest 30 messages and "Show earlier messages", which adds the 30 before them and
// keeps the message that was oldest in view, with JavaScript and without; a reply sent from a page
// showing earlier messages keeps them and appears below. Screenshots at 1366 and 375 px.
import type { Page } from '@playwright/test';
import {
  expect,
  expectNoViolations,
  newContext,
  newWorkspace,
  screenshots,
  signedInContext,
  superuserSql,
  test,
  uniqueEmail,
} from './fixtures.ts';

const MESSAGES = 1000;

/** The bodies of the messages the thread shows, oldest first. */
const shown = (page: Page) => page.locator('[data-message-id] .hd-message__body').allTextContents();

/** The numbers "Message N" of the thread's messages, oldest first. */
async function numbers(page: Page) {
  return (await shown(page)).map((body) => Number(/^Message (\d+)$/.exec(body.trim())?.[1] ?? 0));
}

/** The `count` messages a window ends with: `to` down, in order (only those `keep` lets through). */
const range = (to: number, count: number, keep = (_n: number) => true) => {
  const out: number[] = [];
  for (let n = to; out.length < count && n >= 0; n--) if (keep(n)) out.unshift(n);
  return out;
};

test.describe('long threads', () => {
  test('a 1 000-message ticket shows its newest 30 and pages back, for agent and requester, JavaScript on and off', async ({
    browser,
  }) => {
    // Three browsers over a 1 000-message thread: minutes on a loaded machine.
    test.setTimeout(240_000);
    const { context: adminContext, page: admin } = await newContext(browser);
    const slug = await newWorkspace(admin, { label: 'long-thread' });
    const customerEmail = uniqueEmail('customer');
    const { context: customerContext, page: customer } = await signedInContext(browser, customerEmail, {
      javaScript: false,
    });
    await customer.goto(`/support/${slug}/new`);
    await customer.getByLabel('Subject').fill('A very long story');
    await customer.getByLabel('Message').fill('Message 0');
    await customer.getByRole('button', { name: 'Submit request' }).click();
    await customer.waitForURL(/\/requests\/1$/);

    // 999 more, a minute apart after the first (moved a day back): every 10th an internal note by the
    // admin, odd ones the admin's replies, even ones the customer's.
    await superuserSql(
      `with t as (select t.id, t.workspace_id, t.requester_id, w.created_by as admin
                    from tickets t join workspaces w on w.id = t.workspace_id where w.slug = $1 and t.number = 1),
            first as (update messages m set created_at = now() - interval '1 day' from t where m.ticket_id = t.id returning m.created_at)
       insert into messages (ticket_id, workspace_id, author_id, kind, body, created_at)
       select t.id, t.workspace_id, case when g % 2 = 1 or g % 10 = 0 then t.admin else t.requester_id end,
              case when g % 10 = 0 then 'note' else 'reply' end, 'Message ' || g,
              (select created_at from first) + make_interval(mins => g)
         from t, generate_series(1, $2::int - 1) g`,
      [slug, MESSAGES],
    );

    // The agent, with JavaScript: the newest 30, then 30 more above them, the old top still in view.
    await admin.goto(`/w/${slug}/tickets/1`);
    expect(await numbers(admin)).toEqual(range(MESSAGES - 1, 30));
    await admin.getByRole('link', { name: 'Show earlier messages' }).click();
    await expect(admin.locator('[data-message-id]')).toHaveCount(60);
    expect(await numbers(admin)).toEqual(range(MESSAGES - 1, 60));
    await expect(admin.getByText('Message 970', { exact: true })).toBeInViewport();
    await expectNoViolations(admin);
    await screenshots(admin, 'long-thread-agent');

    // A reply from here: it lands at the bottom and the earlier messages stay.
    await admin.getByLabel('Message').fill('Message 1000');
    await admin.getByRole('button', { name: 'Send', exact: true }).click();
    await expect(admin.locator('[data-message-id]').last()).toContainText('Message 1000');
    expect(await numbers(admin)).toEqual(range(MESSAGES, 61));
    await expect(admin.getByLabel('Message')).toHaveValue('');

    // The requester without JavaScript: replies only (no notes), 30 of them, then 30 more, landing
    // on the one that was oldest.
    const isReply = (n: number) => n % 10 !== 0 || n === 0 || n === MESSAGES;
    await customer.reload();
    expect(await numbers(customer)).toEqual(range(MESSAGES, 30, isReply));
    await customer.getByRole('link', { name: 'Show earlier messages' }).click();
    expect(await numbers(customer)).toEqual(range(MESSAGES, 60, isReply));
    const oldest = range(MESSAGES, 30, isReply)[0];
    expect(new URL(customer.url()).hash).toMatch(/^#message-/);
    await expect(customer.getByText(`Message ${oldest}`, { exact: true })).toBeInViewport();
    await screenshots(customer, 'long-thread-portal');

    // A thread's start: the link goes once nothing is earlier. Paging there a page at a time is what
    // the link does; the database test walks it whole, so here the address jumps near the start.
    const [{ id: firstId, at }] = await superuserSql(
      `select m.id, to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at
         from messages m join tickets t on t.id = m.ticket_id join workspaces w on w.id = t.workspace_id
        where w.slug = $1 and t.number = 1 and m.body = 'Message 20'`,
      [slug],
    );
    const cursor = Buffer.from(`${at}|${firstId}`).toString('base64url');
    const { context: noScript, page: agentNoJs } = await newContext(browser, { javaScript: false });
    await agentNoJs.context().addCookies(await adminContext.cookies());
    await agentNoJs.goto(`/w/${slug}/tickets/1?earlier=${cursor}`);
    const all = await numbers(agentNoJs);
    expect(all.slice(0, 21)).toEqual(range(20, 21));
    expect(all.at(-1)).toBe(MESSAGES);
    await expect(agentNoJs.getByRole('link', { name: 'Show earlier messages' })).toHaveCount(0);

    await Promise.all([adminContext.close(), customerContext.close(), noScript.close()]);
  });
});
