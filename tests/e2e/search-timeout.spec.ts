// A search the database can't answer in time (docs/product.md §8 search_timeout) is a page that says so,
// with the query kept, never a 500; a number searched opens that ticket. On a stack of its own: its
// statement timeout is made short (1 s) and the search is held up by a lock on messages, which the
// other tests' stack must not feel.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startStack } from '@tend/supabase-local';
import { startAppServer } from '../../scripts/lib/app-server.ts';
import { waitForMail } from '../../scripts/lib/mail.ts';
import { enterCode, expect, requestCode, test } from './fixtures.ts';

const AGENT = 'agent@acme.test';
const TOO_LONG = 'This search took too long. Narrow it with a view or a filter, or add a word.';

test('a search stopped by the statement timeout keeps the query and says how to narrow it; a number opens its ticket', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-e2e-search-'));
  chmodSync(dir, 0o755);
  const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
  const admin = new URL(stack.dbUrl);
  admin.username = 'supabase_admin';
  const db = new pg.Client({ connectionString: admin.toString() });
  let server: Awaited<ReturnType<typeof startAppServer>> | undefined;
  try {
    await db.connect();
    // PostgREST applies the role's statement_timeout to each request (read with the schema cache).
    await db.query(`alter role authenticated set statement_timeout = '1s'`);
    await db.query(`notify pgrst, 'reload schema'`);
    server = await startAppServer(process.env.E2E_BUILD_DIR!, {
      SUPABASE_URL: stack.apiUrl,
      SUPABASE_ANON_KEY: stack.anonKey,
      WEB_CONCURRENCY: '1',
    });
    await page.goto(`${server.baseURL}/login`);
    await requestCode(page, AGENT);
    await enterCode(page, (await waitForMail(stack.mailUrl, AGENT, 1)).code);
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));

    // "#1": ticket 1's page.
    await page.goto(`${server.baseURL}/w/acme?view=all&q=%231`);
    await expect(page).toHaveURL(`${server.baseURL}/w/acme/tickets/1`);

    await db.query('begin');
    await db.query('lock table public.messages in access exclusive mode');
    const response = await page.goto(`${server.baseURL}/w/acme?view=all&q=refund+parcel`);
    expect(response?.status()).toBe(503);
    await expect(page.getByTestId('search-error')).toHaveText(TOO_LONG);
    await expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue('refund parcel');
    await expect(page.getByTestId('inbox-empty')).toBeHidden();
    // The views to narrow it with are there, with their counts.
    await expect(page.getByRole('navigation', { name: 'Views' }).getByRole('link')).toHaveCount(11); // eight views (Snoozed and Mentions too), Breaching soon, Spam and Trash
    await expect(page.getByText(/Something went wrong|Error:|at .*\.js:\d+/)).toHaveCount(0);
    // The lock lasts until the page is read: the page may ask again once it is live (a revalidation),
    // and that answer must not replace the one under test.
    await db.query('commit');

    // The same search without the lock answers.
    await page.goto(`${server.baseURL}/w/acme?view=all&q=refund+parcel`);
    await expect(page.getByTestId('search-error')).toHaveCount(0);
  } finally {
    await server?.stop();
    await db.end().catch(() => undefined);
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
