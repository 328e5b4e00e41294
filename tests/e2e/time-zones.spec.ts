// Times in the workspace's time zone, with the zone named (issue 25 item 9, "Times"; docs/product.md §2):
// the agent's ticket thread, the requester's thread and list, the members page and the notifications
// say the time there, said by the server so the page, hydrated, says the same (no mismatch logged).
import { randomUUID } from 'node:crypto';
import { expect, serviceRest, signedInContext, test, uniqueEmail } from './fixtures.ts';

/** "27 Nov 2026, 19:37 UTC+1" for an ISO time in Berlin in winter (the test's messages are of today). */
function inBerlin(iso: string) {
  const d = new Date(iso);
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Berlin',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(d);
  const offset = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', timeZoneName: 'shortOffset' })
    .formatToParts(d)
    .find((p) => p.type === 'timeZoneName')!
    .value.replace('GMT', 'UTC');
  return { time: parts, zone: offset };
}

test("times are the workspace's, with the zone named, on the agent's and the requester's pages", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const tag = randomUUID().slice(0, 8);
  const slug = `zones-${tag}`;
  const { context: agentContext, page: agent } = await signedInContext(browser, uniqueEmail('zones-agent'));
  const mismatches: string[] = [];
  agent.on('console', (m) => {
    if (m.type() === 'error') mismatches.push(m.text());
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

  const { context, page } = await signedInContext(browser, uniqueEmail('zones-customer'));
  await page.goto(`/support/${slug}/new`);
  await page.getByLabel('Subject').fill(`Clock ${tag}`);
  await page.getByLabel('Message').fill('What time is it there?');
  await page.getByRole('button', { name: 'Submit request' }).click();
  await expect(page).toHaveURL(new RegExp(`/support/${slug}/requests/\\d+$`));
  const [ws] = await serviceRest(`workspaces?slug=eq.${slug}&select=tickets(number,messages(created_at))`);
  const { number } = ws.tickets[0];
  const { time, zone } = inBerlin(ws.tickets[0].messages[0].created_at);
  expect(zone).toMatch(/^UTC\+[12]$/);

  // The requester's thread and list.
  const stamp = page.locator('[data-kind="reply"] time').first();
  await expect(stamp).toContainText(`${time} ${zone}`);
  await page.goto(`/support/${slug}`);
  await expect(page.getByTestId('my-requests')).toContainText(`${time} ${zone}`);

  // The agent's thread, hydrated, and the members page.
  await agent.goto(`/w/${slug}/tickets/${number}`);
  await expect(agent.locator('[data-kind="reply"] time').first()).toContainText(`${time} ${zone}`);
  await expect(agent.getByTestId('live-status')).toBeAttached();
  await agent.goto(`/w/${slug}/settings/members`);
  await expect(agent.getByTestId('member').first()).toContainText(zone);
  expect(mismatches.filter((m) => /hydrat|did not match/i.test(m))).toEqual([]);
  await context.close();
  await agentContext.close();
});
