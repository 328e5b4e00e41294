// What every page gets right (issue 25 item 9): the "Live" bar's place is kept, so nothing moves when
// the connection answers (layout shift); text people wrote is isolated (a U+202E in a subject stays
// inside it); every page has a meta description.
import type { Page } from '@playwright/test';
import { expect, newContext, newWorkspace, test } from './fixtures.ts';

/**
 * What moved down or up on the page so far (Chromium's layout-shift entries, not after input): each
 * shifted element's tag and class, and how far. The composer is left out: its enhancement after load
 * (the canned-reply picker) is another matter than the Live bar.
 */
const shifts = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<string[]>((resolve) => {
        const moved: string[] = [];
        type Source = { node?: Element; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly };
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as unknown as { hadRecentInput: boolean; sources: Source[] }[])
            if (!entry.hadRecentInput)
              for (const s of entry.sources) {
                const dy = s.currentRect.y - s.previousRect.y;
                if (dy && !(s.node instanceof Element && s.node.closest('.hd-composer')))
                  moved.push(`${s.node?.nodeName} ${s.node instanceof Element ? s.node.className : ''} ${dy}`);
              }
        }).observe({ type: 'layout-shift', buffered: true });
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(moved)));
      }),
  );

const description = (page: Page) => page.locator('head meta[name="description"]').getAttribute('content');

test('the Live bar moves nothing; user text is isolated; pages have a description', async ({ browser }) => {
  test.setTimeout(90_000);
  const { context, page } = await newContext(browser, { live: true });
  const slug = await newWorkspace(page, { label: 'details' });
  const subject = '\u202Eexe.txt invoice';
  await page.goto(`/support/${slug}/new`);
  expect(await description(page)).toBeTruthy();
  await page.getByLabel('Subject').fill(subject);
  await page.getByLabel('Message').fill('A subject with a right-to-left override.');
  await page.getByRole('button', { name: 'Submit request' }).click();
  await page.waitForURL(/\/requests\/1$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveAttribute('dir', 'auto');
  expect(await description(page)).toBeTruthy();

  for (const path of [`/w/${slug}?view=all`, `/w/${slug}/tickets/1`]) {
    await page.goto(path);
    await expect(page.getByTestId('live-status')).toHaveText('Live');
    expect(await shifts(page), path).toEqual([]);
    expect(await description(page), path).toBeTruthy();
  }
  await expect(page.getByRole('heading', { level: 1 })).toHaveAttribute('dir', 'auto');
  await page.goto(`/w/${slug}?view=all`);
  const row = page.getByTestId('inbox-row');
  await expect(row.locator('a[dir="auto"]')).toHaveText(subject);
  await expect(row.locator('.hd-cell-requester bdi')).toHaveText(/^admin-/);
  await context.close();

  const signedOut = await newContext(browser);
  for (const path of ['/', '/login', `/support/${slug}`]) {
    await signedOut.page.goto(path);
    expect(await description(signedOut.page), path).toBeTruthy();
  }
  await signedOut.context.close();
});
