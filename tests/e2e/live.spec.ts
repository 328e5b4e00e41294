// Live pages (issue 16): two agents and a customer in their own browser contexts, against the real
// stack. A request a customer opens appears in an open inbox; a reply appears in the other agent's
// open ticket and in the customer's thread (never a note); presence shows who else is viewing and
// typing, never under a name a member forged; with the realtime service stopped the page says
// "Reconnecting…", and once it is back, "Live" and what it missed. Fresh accounts and a workspace of
// their own: the seeded ones are signed in by other specs (one code per email a minute), and no other
// test changes this inbox.
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from '@playwright/test';
import { createClient } from '@supabase/supabase-js';
import {
  expect,
  screenshots,
  serviceRest,
  signedInContext,
  signInByForm,
  superuserSql,
  test,
  uniqueEmail,
  userId,
} from './fixtures.ts';

async function realtimeService(action: 'stop' | 'start') {
  const res = await fetch(`${process.env.E2E_STACK_CONTROL_URL}/realtime/${action}`, { method: 'POST' });
  expect(res.status, `realtime ${action}`).toBe(204);
}

const liveStatus = (page: Page) => page.getByTestId('live-status');
const composer = (page: Page) => page.locator('form.hd-composer');

async function openRequest(customer: Page, slug: string, subject: string) {
  await customer.goto(`/support/${slug}/new`);
  await customer.getByLabel('Subject').fill(subject);
  await customer.getByLabel('Message').fill(`Details of ${subject}.`);
  await customer.getByRole('button', { name: 'Submit request' }).click();
  await customer.waitForURL(/\/requests\/\d+$/);
  return Number(/requests\/(\d+)$/.exec(customer.url())![1]);
}

/** Sets a flag a document load would clear: the page was updated in place, not reloaded. */
const markDocument = (page: Page) =>
  page.evaluate(() => ((window as { __sameDocument?: boolean }).__sameDocument = true));
const sameDocument = (page: Page) => page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument);

test.describe('live pages', () => {
  test.describe.configure({ mode: 'serial' });
  const tag = randomUUID().slice(0, 8);
  const slug = `live-${tag}`;
  let first: { context: BrowserContext; page: Page };
  let second: { context: BrowserContext; page: Page };
  let customer: { context: BrowserContext; page: Page };
  let ticket = 0;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    // First agent: makes the workspace (its admin); second agent: added as a member; a customer.
    [first, second, customer] = await Promise.all([
      signedInContext(browser, uniqueEmail('live-ada'), { live: true }),
      signedInContext(browser, uniqueEmail('live-sam'), { live: true }),
      signedInContext(browser, uniqueEmail('live-casey'), { live: true }),
    ]);
    await first.page.goto('/onboarding');
    await first.page.getByLabel('Workspace name').fill(`Live ${tag}`);
    await first.page.getByLabel('Address').fill(slug);
    await first.page.getByRole('button', { name: 'Create workspace' }).click();
    await first.page.waitForURL(`/w/${slug}`);
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    await serviceRest('memberships', {
      method: 'POST',
      body: JSON.stringify({ workspace_id: workspace.id, user_id: await userId(second.page), role: 'agent' }),
    });
  });
  test.afterAll(async () => {
    for (const c of [first, second, customer]) await c?.context.close();
  });

  // How soon: the change reaches the page in bench:realtime's time, then the page waits 200 ms for
  // more (use-live-channel.ts) and loads the inbox (bench:inbox); a test asserts no wall-clock time.
  test('a request a customer opens appears in an open inbox, without a reload', async () => {
    const inbox = first.page;
    await inbox.goto(`/w/${slug}`);
    await expect(liveStatus(inbox)).toHaveText('Live');
    await expect(inbox.getByTestId('count-unassigned')).toHaveText('0');
    await markDocument(inbox);
    const subject = `Toaster sparks ${tag}`;
    ticket = await openRequest(customer.page, slug, subject);
    await expect(inbox.getByTestId('inbox-row').getByRole('link', { name: subject })).toBeVisible();
    await expect(inbox.getByTestId('count-unassigned')).toHaveText('1');
    expect(await sameDocument(inbox)).toBe(true);
  });

  test("another agent's changes follow in the inbox, which keeps its filters and page", async () => {
    const inbox = first.page;
    await inbox.goto(`/w/${slug}?view=all&priority=urgent`);
    await expect(liveStatus(inbox)).toHaveText('Live');
    await inbox.getByLabel('Search').fill('draft search text');
    await markDocument(inbox);
    // The second agent makes it urgent: it joins the filtered list; the typed search stays.
    await second.page.goto(`/w/${slug}/tickets/${ticket}`);
    await second.page.getByLabel('Priority', { exact: true }).selectOption('urgent');
    await expect(inbox.getByTestId('inbox-row')).toHaveCount(1);
    await expect(inbox.getByLabel('Search')).toHaveValue('draft search text');
    expect(new URL(inbox.url()).search).toBe('?view=all&priority=urgent');
    expect(await sameDocument(inbox)).toBe(true);
  });

  test('on a later page, new requests are counted, not pushed in', async () => {
    // 30 older requests, so the inbox has a second page.
    const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id`);
    const requester = await userId(customer.page);
    const old = new Date(Date.now() - 86_400_000).toISOString();
    await serviceRest('tickets', {
      method: 'POST',
      body: JSON.stringify(
        Array.from({ length: 30 }, (_, i) => ({
          workspace_id: workspace.id,
          requester_id: requester,
          subject: `Older request ${i} ${tag}`,
          last_message_at: old,
        })),
      ),
    });
    const inbox = first.page;
    await inbox.goto(`/w/${slug}?view=all`);
    await expect(liveStatus(inbox)).toHaveText('Live');
    // The 30 inserts may reach the page after it subscribed (the realtime service reads the log behind the
    // commits). Changes come in commit order: once a request made after them shows up live, theirs have come
    // too, and none of them can be counted as new on the later page.
    await openRequest(customer.page, slug, `Marker ${tag}`);
    await expect(inbox.getByTestId('inbox-row').first()).toContainText(`Marker ${tag}`);
    await inbox.getByRole('link', { name: 'Older →' }).click();
    await expect(inbox.getByTestId('inbox-range')).toHaveText(/^26–/);
    await expect(liveStatus(inbox)).toHaveText('Live');
    const rows = await inbox.getByTestId('inbox-row').allTextContents();
    await openRequest(customer.page, slug, `Kettle leaks ${tag}`);
    await expect(inbox.getByTestId('inbox-new')).toHaveText('1 new · show newest');
    expect(await inbox.getByTestId('inbox-row').allTextContents()).toEqual(rows);
    await inbox.getByTestId('inbox-new').click();
    await expect(inbox.getByTestId('inbox-row').first()).toContainText(`Kettle leaks ${tag}`);
    await expect(inbox.getByTestId('inbox-new')).toHaveCount(0);
  });

  test('a page in a background tab catches up once shown, not at every change', async () => {
    const inbox = first.page;
    // The page's own clock, to move it past the wait for more changes instead of sleeping.
    await inbox.clock.install();
    const changes: string[] = [];
    inbox.on('websocket', (socket) =>
      socket.on('framereceived', ({ payload }) => {
        if (typeof payload === 'string' && payload.includes('postgres_changes')) changes.push(payload);
      }),
    );
    await inbox.goto(`/w/${slug}?view=all`);
    await expect(liveStatus(inbox)).toHaveText('Live');
    await markDocument(inbox);
    const setVisibility = (state: 'hidden' | 'visible') =>
      inbox.evaluate((s) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);
    const loads: string[] = [];
    inbox.on('request', (r) => {
      // A revalidation is one single-fetch request (docs/decisions/014-single-fetch.md).
      if (new URL(r.url()).pathname.endsWith('.data')) loads.push(r.url());
    });
    await setVisibility('hidden');
    const subject = `Fridge hums ${tag}`;
    await openRequest(customer.page, slug, subject);
    // The change reached the hidden page, and it waited its longest for more (1 s, use-live-channel.ts)
    // without loading anything.
    await expect.poll(() => changes.some((c) => c.includes(subject))).toBe(true);
    await inbox.clock.runFor(1_000);
    expect(loads).toEqual([]);
    await expect(inbox.getByTestId('inbox-row').getByRole('link', { name: subject })).toHaveCount(0);
    // One more change just before the tab is shown: its wait for more (a timer the paused clock holds) is
    // still pending when the page catches up, and the catch-up covers it.
    await inbox.clock.pauseAt(Date.now() + 2_000);
    const renamed = `${subject} (renamed)`;
    await superuserSql('update tickets set subject = $1 where subject = $2', [renamed, subject]);
    await expect.poll(() => changes.some((c) => c.includes(renamed))).toBe(true);
    await setVisibility('visible');
    await expect(inbox.getByTestId('inbox-row').getByRole('link', { name: renamed })).toBeVisible();
    await inbox.clock.runFor(1_000);
    expect(loads).toHaveLength(1);
    expect(await sameDocument(inbox)).toBe(true);
    await inbox.clock.resume(); // the next tests use this page with time flowing
  });

  test('an inbox whose update the network fails keeps its rows, and catches up once it gets through', async () => {
    const inbox = second.page;
    await inbox.goto(`/w/${slug}?view=all`);
    await expect(liveStatus(inbox)).toHaveText('Live');
    await markDocument(inbox);
    const rows = await inbox.getByTestId('inbox-row').allTextContents();
    // The browser says it is online, but no page data gets through; the open socket still brings changes.
    const blocked = `**/w/${slug}.data*`;
    let failures = 0;
    await inbox.route(blocked, (route) => {
      failures += 1;
      return route.abort('internetdisconnected');
    });
    const subject = `Oven clicks ${tag}`;
    await openRequest(customer.page, slug, subject);
    // Tried, failed, tried again: the inbox stays as it was shown, not an error page.
    await expect.poll(() => failures).toBeGreaterThanOrEqual(2);
    expect(await inbox.getByTestId('inbox-row').allTextContents()).toEqual(rows);
    await expect(liveStatus(inbox)).toHaveText('Reconnecting…');
    await inbox.unroute(blocked);
    await expect(inbox.getByTestId('inbox-row').getByRole('link', { name: subject })).toBeVisible();
    await expect(liveStatus(inbox)).toHaveText('Live');
    expect(await sameDocument(inbox)).toBe(true);
  });

  test("presence shows the other agent viewing and typing; their reply appears in the open ticket and the customer's thread", async () => {
    const url = `/w/${slug}/tickets/${ticket}`;
    await Promise.all([
      first.page.goto(url),
      second.page.goto(url),
      customer.page.goto(`/support/${slug}/requests/${ticket}`),
    ]);
    for (const page of [first.page, second.page, customer.page]) await expect(liveStatus(page)).toHaveText('Live');
    const viewers = first.page.getByTestId('live-viewers');
    await expect(viewers).toContainText('is viewing');
    await expect(second.page.getByTestId('live-viewers')).toContainText('is viewing');
    await markDocument(first.page);
    await markDocument(customer.page);
    // The first agent has a draft going; it must survive the page catching up.
    await composer(first.page).getByLabel('Message', { exact: true }).fill('My own draft');

    await composer(second.page).getByRole('radio', { name: 'Internal note' }).check();
    await composer(second.page).getByLabel('Message', { exact: true }).pressSequentially('Checking the war');
    await expect(viewers).toContainText('is writing a note…');
    await composer(second.page).getByLabel('Message', { exact: true }).fill(`Warranty is valid (${tag}).`);
    await composer(second.page).getByRole('button', { name: 'Add internal note' }).click();
    await expect(first.page.locator('[data-kind="note"]', { hasText: `Warranty is valid (${tag}).` })).toBeVisible();
    await expect(viewers).toContainText('is viewing');

    await composer(second.page).getByRole('radio', { name: 'Reply to customer' }).check();
    await composer(second.page).getByLabel('Message', { exact: true }).pressSequentially('We will');
    await expect(viewers).toContainText('is typing a reply…');
    const reply = `We will send a new toaster (${tag}).`;
    await composer(second.page).getByLabel('Message', { exact: true }).fill(reply);
    await composer(second.page).getByRole('button', { name: 'Send', exact: true }).click();
    await expect(first.page.locator('[data-kind="reply"]', { hasText: reply })).toBeVisible();
    await expect(customer.page.locator('[data-kind="reply"]', { hasText: reply })).toBeVisible();
    // The customer never gets the note; the agent's draft is where it was.
    await expect(customer.page.getByText(`Warranty is valid (${tag}).`)).toHaveCount(0);
    await expect(composer(first.page).getByLabel('Message', { exact: true })).toHaveValue('My own draft');
    expect(await sameDocument(first.page)).toBe(true);
    expect(await sameDocument(customer.page)).toBe(true);
  });

  test('a member who forges presence or typing in another member’s name is shown only as himself', async ({
    browser,
  }) => {
    test.setTimeout(60_000);
    // Lee, a third member, really opens the ticket; Sam forges Lee from a client of his own.
    const lee = await signedInContext(browser, uniqueEmail('live-lee'), { live: true });
    const { token: samToken } = await (await second.page.request.get('/realtime-token')).json();
    const forging = createClient(process.env.E2E_API_URL!, process.env.E2E_ANON_KEY!, {
      accessToken: async () => samToken,
    });
    try {
      const leeId = await userId(lee.page);
      const [workspace] = await serviceRest(`workspaces?slug=eq.${slug}&select=id,tickets(id,number)`);
      const ticketId = workspace.tickets.find((t: { number: number }) => t.number === ticket).id;
      await serviceRest('memberships', {
        method: 'POST',
        body: JSON.stringify({ workspace_id: workspace.id, user_id: leeId, role: 'agent' }),
      });
      const url = `/w/${slug}/tickets/${ticket}`;
      await second.page.goto(`/w/${slug}`);
      await first.page.goto(url);
      await expect(liveStatus(first.page)).toHaveText('Live');
      const viewers = first.page.getByTestId('live-viewers');
      await lee.page.goto(url);
      await expect(liveStatus(lee.page)).toHaveText('Live');
      await expect(viewers.getByRole('listitem')).toHaveCount(1);
      await expect(viewers).toContainText('is viewing');
      // Everything the first agent's bar shows from now on.
      await first.page.evaluate(() => {
        const shown: string[] = [];
        (window as { __shown?: string[] }).__shown = shown;
        new MutationObserver(() => {
          shown.push(document.querySelector('[data-testid="live-viewers"]')?.textContent ?? '');
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      });

      // Sam joins under Lee's id (what a page keyed by user id showed as Lee), announces every entry he
      // sees as his (Lee's too), and broadcasts "writing a note" in Lee's name.
      const forged = forging.channel(`ticket:${ticketId}`, { config: { private: true, presence: { key: leeId } } });
      forged.on('presence', { event: 'sync' }, () => undefined);
      await forging.realtime.setAuth();
      await new Promise<void>((resolve, reject) =>
        forged.subscribe((status) => {
          if (status === 'SUBSCRIBED') resolve();
          else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(new Error(status));
        }),
      );
      expect(await forged.track({})).toBe('ok');
      await expect.poll(() => (forged.presenceState()[leeId] ?? []).length).toBe(1);
      for (const entry of Object.values(forged.presenceState()).flat() as { presence_ref: string }[])
        await forging.rpc('announce_ticket_viewer', { p_ticket_id: ticketId, p_presence_ref: entry.presence_ref });
      await forged.send({ type: 'broadcast', event: 'typing', payload: { user_id: leeId, kind: 'note' } });
      // Sam is shown, as Sam. Then Lee really types a reply: shown, and the forged note never was.
      const person = (name: RegExp) => viewers.getByRole('listitem').filter({ hasText: name });
      await expect(person(/^live-sam-/)).toContainText('is viewing');
      await composer(lee.page).getByLabel('Message', { exact: true }).pressSequentially('On it');
      await expect(person(/^live-lee-/)).toContainText('is typing a reply…');
      await screenshots(first.page, 'ticket-viewers');
      const shown = await first.page.evaluate(() => (window as { __shown?: string[] }).__shown ?? []);
      expect(shown.filter((text) => text.includes('writing a note'))).toEqual([]);
      await expect(viewers.getByRole('listitem')).toHaveCount(2);

      // Lee leaves: Sam's entry under Lee's id stays, and shows Sam alone.
      await lee.page.goto(`/w/${slug}`);
      await expect(person(/^live-lee-/)).toHaveCount(0);
      await expect(viewers.getByRole('listitem')).toHaveCount(1);
      await expect(person(/^live-sam-/)).toContainText('is viewing');
      expect(Object.keys(forged.presenceState())).toContain(leeId);
    } finally {
      await forging.removeAllChannels();
      forging.realtime.disconnect();
      await lee.context.close();
    }
  });

  test('the realtime service stopping shows "Reconnecting…"; once back, "Live" and the missed reply', async () => {
    test.setTimeout(60_000);
    const page = first.page;
    await page.goto(`/w/${slug}/tickets/${ticket}`);
    await expect(liveStatus(page)).toHaveText('Live');
    await markDocument(page);
    await realtimeService('stop');
    try {
      await expect(liveStatus(page)).toHaveText('Reconnecting…');
      const missed = `Sent while you were offline (${tag}).`;
      await customer.page.goto(`/support/${slug}/requests/${ticket}`);
      await customer.page.getByLabel('Your reply').fill(missed);
      await customer.page.getByRole('button', { name: 'Send reply' }).click();
      await expect(customer.page.locator('[data-kind="reply"]', { hasText: missed })).toBeVisible();
      await expect(page.locator('[data-kind="reply"]', { hasText: missed })).toHaveCount(0);
      await realtimeService('start');
      // realtime-js retries 1, 2, 5, then every 10 s.
      await expect(liveStatus(page)).toHaveText('Live', { timeout: 20_000 });
      await expect(page.locator('[data-kind="reply"]', { hasText: missed })).toBeVisible();
      expect(await sameDocument(page)).toBe(true);
    } finally {
      await realtimeService('start');
    }
  });
});

test.describe('the access token for live updates', () => {
  test('is refused without a session, and stored nowhere', async ({ request }) => {
    const res = await request.get('/realtime-token');
    expect(res.status()).toBe(401);
    expect(res.headers()['cache-control']).toBe('no-store');
  });

  test("is the user's own, and a fresh one once the session nears its expiry", async ({ page, context }) => {
    await signInByForm(page, uniqueEmail());
    const first = await page.request.get('/realtime-token');
    expect(first.headers()['cache-control']).toBe('no-store');
    const held = await first.json();
    const claims = JSON.parse(Buffer.from(held.token.split('.')[1], 'base64url').toString());
    expect(claims.role).toBe('authenticated');
    expect(held.expiresAt).toBe(claims.exp);
    // The session as the browser holds it, 60 s from its end: the server refreshes it (auth-js does
    // within 90 s) and hands over the new token with the new cookies.
    const auth = (await context.cookies()).find((c) => /^sb-.+-auth-token$/.test(c.name))!;
    const session = JSON.parse(Buffer.from(auth.value.replace(/^base64-/, ''), 'base64url').toString('utf8'));
    session.expires_at = Math.floor(Date.now() / 1000) + 60;
    await context.addCookies([
      { ...auth, value: `base64-${Buffer.from(JSON.stringify(session)).toString('base64url')}` },
    ]);
    const second = await page.request.get('/realtime-token');
    expect(second.status()).toBe(200);
    const fresh = await second.json();
    expect(fresh.token).not.toBe(held.token);
    expect(fresh.expiresAt).toBeGreaterThan(Math.floor(Date.now() / 1000) + 600);
    expect(second.headers()['set-cookie']).toMatch(/sb-.+-auth-token/);
  });
});
