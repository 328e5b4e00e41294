// Times in each viewer's time zone, with the zone named (issue 25 item 9, "Times"; docs/product.md §2,
// docs/decisions/067-viewer-time-zone.md): an agent's browser in New York reads New York time on the
// ticket page and in the inbox; a requester without JavaScript reads the workspace's (Berlin); the zone
// chosen in /account wins for both; an unknown zone is refused. Said by the server, so the page,
// hydrated, says the same (no mismatch logged).
import { randomUUID } from 'node:crypto';
import {
  env,
  expect,
  expectNoViolations,
  screenshots,
  serviceRest,
  signedInContext,
  test,
  uniqueEmail,
} from './fixtures.ts';

/** "14:05 UTC-5": an ISO time's clock in a zone, the zone named by its offset then, as the pages say it. */
function said(iso: string, timeZone: string) {
  const d = new Date(iso);
  const time = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const offset = new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'shortOffset' })
    .formatToParts(d)
    .find((p) => p.type === 'timeZoneName')!
    .value.replace('GMT', 'UTC');
  return `${time.format(d)} ${offset === 'UTC' ? 'UTC' : offset}`;
}

test("each viewer reads times in their zone: the browser's, else the workspace's, unless /account says another", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const tag = randomUUID().slice(0, 8);
  const slug = `zones-${tag}`;
  const { context: agentContext, page: agent } = await signedInContext(browser, uniqueEmail('zones-agent'), {
    timezoneId: 'America/New_York',
  });
  const errors: string[] = [];
  agent.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await agent.goto('/onboarding');
  await agent.getByLabel('Workspace name').fill(`Zones ${tag}`);
  await agent.getByLabel('Address').fill(slug);
  await agent.getByRole('button', { name: 'Create workspace' }).click();
  await agent.waitForURL(`/w/${slug}`);
  await serviceRest(`workspaces?slug=eq.${slug}`, {
    method: 'PATCH',
    body: JSON.stringify({ time_zone: 'Europe/Berlin' }),
  });

  // A requester without JavaScript: the browser never says its zone, so the workspace's.
  const { context, page } = await signedInContext(browser, uniqueEmail('zones-customer'), { javaScript: false });
  await page.goto(`/support/${slug}/new`);
  await page.getByLabel('Subject').fill(`Clock ${tag}`);
  await page.getByLabel('Message').fill('What time is it there?');
  await page.getByRole('button', { name: 'Submit request' }).click();
  await expect(page).toHaveURL(new RegExp(`/support/${slug}/requests/\\d+$`));
  const thread = page.url();
  const [ws] = await serviceRest(`workspaces?slug=eq.${slug}&select=tickets(number,messages(created_at))`);
  const { number } = ws.tickets[0];
  const at: string = ws.tickets[0].messages[0].created_at;
  const stamp = page.locator('[data-kind="reply"] time').first();
  await expect(stamp).toContainText(said(at, 'Europe/Berlin'));
  await page.goto(`/support/${slug}`);
  await expect(page.getByTestId('my-requests')).toContainText(said(at, 'Europe/Berlin'));

  // The agent's browser is in New York: the thread, the history (the same moment) and the inbox say so.
  await agent.goto(`/w/${slug}/tickets/${number}`);
  await expect(agent.locator('[data-kind="reply"] time').first()).toContainText(said(at, 'America/New_York'));
  await expect(agent.locator('.hd-history li').first()).toContainText(said(at, 'America/New_York'));
  await expect(agent.getByTestId('live-status')).toBeAttached();
  await screenshots(agent, 'ticket-in-browser-zone');
  await agent.goto(`/w/${slug}`);
  const title = await agent.getByTestId('inbox-row').first().locator('time').getAttribute('title');
  expect(title).toContain(said(at, 'America/New_York'));

  // /account: automatic names the browser's zone; another chosen wins over it.
  await agent.goto('/account');
  const choice = agent.getByLabel('Show times in');
  await expect(choice).toHaveValue('');
  await expect(choice.locator('option').first()).toHaveText("Automatic: your browser's (America/New York)");
  await choice.selectOption('Asia/Tokyo');
  await agent.getByRole('button', { name: 'Save time zone' }).click();
  await expect(agent.locator('#time-zone').getByText('Saved.')).toBeVisible();
  await expect(choice).toHaveValue('Asia/Tokyo');
  await expectNoViolations(agent);
  await screenshots(agent, 'account-time-zone');
  await agent.goto(`/w/${slug}/tickets/${number}`);
  await expect(agent.locator('[data-kind="reply"] time').first()).toContainText(said(at, 'Asia/Tokyo'));

  // The requester chooses theirs, without JavaScript; an unknown zone is refused and changes nothing.
  await page.goto('/account');
  await page.getByLabel('Show times in').selectOption('Australia/Adelaide');
  await page.getByRole('button', { name: 'Save time zone' }).click();
  await expect(page.locator('#time-zone').getByText('Saved.')).toBeVisible();
  const refused = await page.request.post('/account', {
    form: { intent: 'time_zone', time_zone: 'Mars/Olympus' },
    headers: { Origin: env.baseURL },
  });
  expect(refused.status()).toBe(400);
  expect(await refused.text()).toContain('Choose a time zone from the list, or Automatic.');
  await page.goto(thread);
  await expect(stamp).toContainText(said(at, 'Australia/Adelaide'));
  expect(errors.filter((m) => /hydrat|did not match/i.test(m))).toEqual([]);
  await context.close();
  await agentContext.close();
});
