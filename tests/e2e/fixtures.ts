// Shared fixtures: the app's address from global-setup, a client IP of its own per test (the
// app trusts X-Forwarded-For in e2e), fresh email addresses, and reading codes from the inbox.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test as base, type Browser, type BrowserContext, expect, type Locator, type Page } from '@playwright/test';
import pg from 'pg';
import { messagesTo, waitForMail } from '../../scripts/lib/mail.ts';

let ipCounter = 0;

export const env = {
  get baseURL() {
    return required('E2E_BASE_URL');
  },
  get mailUrl() {
    return required('E2E_MAIL_URL');
  },
};

function required(name: string) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through playwright.config.ts (global-setup)`);
  return value;
}

export function uniqueEmail(label = 'user') {
  return `${label}-${randomUUID().slice(0, 8)}@example.com`;
}

/** An address no other test or context of any worker has had: the sign-in limits are per IP. */
function nextClientIp(workerIndex: number) {
  ipCounter += 1;
  return `10.${workerIndex % 250}.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
}

// React's hydration errors: the browser's first render differs from the server's (a value imported from a
// `.server` module is undefined in the browser, a date formatted in another zone), so React throws the page's
// markup away and renders it again, losing what the user did meanwhile (a click on "Mark all as read" went
// nowhere). Production builds report them as uncaught "Minified React error #418/#422/#423/#425", development
// builds in words.
const HYDRATION_ERROR =
  /Minified React error #(418|422|423|425)\b|Hydration failed|does not match server-rendered HTML/;
const hydrationErrors: string[] = [];

function watchHydration(context: BrowserContext) {
  const record = (page: Page | null, text: string) => {
    if (HYDRATION_ERROR.test(text)) hydrationErrors.push(`${page?.url() ?? '?'}: ${text.split('\n')[0]}`);
  };
  context.on('weberror', (e) => record(e.page(), String(e.error()?.message ?? e.error())));
  context.on('console', (m) => {
    if (m.type() === 'error') record(m.page(), m.text());
  });
}

export const test = base.extend<{ clientIp: string; noHydrationErrors: undefined }, { browser: Browser }>({
  // Every context of the worker is watched, those the tests make with browser.newContext too.
  browser: [
    async ({ browser }, use) => {
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (options) => {
        const context = await newContext(options);
        watchHydration(context);
        return context;
      };
      await use(browser);
    },
    { scope: 'worker' },
  ],
  // A test fails if a page hydrated with errors while it (or its describe's beforeAll) ran.
  noHydrationErrors: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
    async ({}, use) => {
      await use(undefined);
      const seen = hydrationErrors.splice(0);
      expect(seen, 'React hydration errors: the page rendered differently in the browser').toEqual([]);
    },
    { auto: true },
  ],
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
  clientIp: async ({}, use, testInfo) => use(nextClientIp(testInfo.workerIndex)),
  // biome-ignore lint/correctness/noEmptyPattern: as above
  baseURL: async ({}, use) => use(env.baseURL),
  extraHTTPHeaders: async ({ clientIp }, use) => use({ 'X-Forwarded-For': clientIp }),
});

export { expect };

/** The newest code emailed to `email`, once at least `nth` emails have arrived. */
export async function codeFor(email: string, nth = 1) {
  return (await waitForMail(env.mailUrl, email, nth)).code;
}

export async function mailCount(email: string) {
  return (await messagesTo(env.mailUrl, email)).length;
}

export async function requestCode(page: Page, email: string) {
  await page.getByLabel(/email/i).fill(email);
  await page.getByRole('button', { name: /code|continue|sign in/i }).click();
  await expect(page).toHaveURL(/\/login\/verify/);
}

/**
 * Types the code into the code field: without JavaScript the plain input; with it, waits for the
 * hydrated six-box field (input-otp marks its input with data-input-otp) as a user waits for the page.
 */
export async function enterCode(page: Page, code: string, opts: { javaScript?: boolean } = {}) {
  const input = opts.javaScript === false ? page.getByLabel(/code/i).first() : page.locator('input[data-input-otp]');
  await input.waitFor();
  await input.click();
  await input.fill(code);
}

export async function submitCode(page: Page) {
  await page.getByRole('button', { name: /^(sign in|verify|continue)/i }).click();
}

/**
 * The whole sign-in from `path` (a /login URL). With JavaScript the six-box field submits itself at
 * six digits; without it the user presses the button.
 */
export async function signIn(page: Page, opts: { email?: string; path?: string; javaScript?: boolean } = {}) {
  const email = opts.email ?? uniqueEmail();
  // An address that signed in before (a seeded account) has older codes in the inbox.
  const before = await mailCount(email);
  await page.goto(opts.path ?? '/login');
  await requestCode(page, email);
  await enterCode(page, await codeFor(email, before + 1), { javaScript: opts.javaScript });
  if (opts.javaScript === false) await submitCode(page);
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  return email;
}

/**
 * Signs the page's browser context in as `email` through the app's own sign-in forms, posted as a
 * browser without JavaScript posts them, without loading the pages (setup for specs of other pages:
 * the session cookies land in the context). The pages themselves are walked by signIn, in
 * sign-in.spec.ts, verify-island.spec.ts and wherever the sign-in is what a spec is about.
 */
export async function signInByForm(page: Page, email: string) {
  const before = await mailCount(email);
  const asked = await page.request.post('/login', { form: { email }, maxRedirects: 0 });
  expect(asked.headers().location, `POST /login for ${email}: ${asked.status()}`).toBe('/login/verify');
  const code = await codeFor(email, before + 1);
  const verified = await page.request.post('/login/verify', { form: { intent: 'verify', code }, maxRedirects: 0 });
  expect(verified.headers().location, `POST /login/verify for ${email}: ${verified.status()}`).toMatch(/^\/(?!login)/);
}

export interface ContextOptions {
  /** Default true. */
  javaScript?: boolean;
  /** Viewport width (height 900); default 1366. */
  width?: number;
  /** Let pages open their realtime socket (live.spec.ts); otherwise it is left unanswered. */
  live?: boolean;
  /** The browser's time zone (the pages say times in it, docs/decisions/067-viewer-time-zone.md); default UTC on every machine. */
  timezoneId?: string;
}

/**
 * A browser context of its own, with a client IP of its own. Without `live` the pages' realtime
 * socket gets no answer, as when Realtime is unreachable: nothing changes under the test but what
 * it does, and a reply written on an old page meets the ticket_changed check.
 */
export async function newContext(browser: Browser, opts: ContextOptions = {}) {
  const javaScript = opts.javaScript ?? true;
  const context = await browser.newContext({
    baseURL: env.baseURL,
    javaScriptEnabled: javaScript,
    viewport: { width: opts.width ?? 1366, height: 900 },
    timezoneId: opts.timezoneId ?? 'UTC',
    extraHTTPHeaders: { 'X-Forwarded-For': nextClientIp(test.info().workerIndex) },
  });
  if (javaScript && !opts.live) await context.routeWebSocket(/\/realtime\/v1\/websocket/, () => undefined);
  return { context, page: await context.newPage() };
}

/** newContext, signed in as `email` (by signInByForm). */
export async function signedInContext(browser: Browser, email: string, opts: ContextOptions = {}) {
  const { context, page } = await newContext(browser, opts);
  await signInByForm(page, email);
  return { context, page };
}

/**
 * Runs `action`, which sends a plain HTML form (island pages have no client-side router), and
 * waits until the answer's document has replaced the current one, so later steps can't act on
 * the page that is being left.
 */
export async function inNewDocument<T>(page: Page, action: () => Promise<T>): Promise<T> {
  await page.evaluate(() => ((window as { __e2eLeaving?: boolean }).__e2eLeaving = true));
  const result = await action();
  await page.waitForFunction(() => !(window as { __e2eLeaving?: boolean }).__e2eLeaving);
  return result;
}

/** axe-core's browser build, evaluated once in each page that is checked. */
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core finds nothing on the page as it is now (docs/product.md: every page, 0 violations).
 * axe runs in the page itself (as @axe-core/playwright's legacy mode does, without its second copy
 * of axe in a blank page, which took half of each check) and reports only violations.
 * Only with JavaScript on: axe waits on timers, which never fire in a page without it (the same
 * document is checked with it on). `exclude`: a sandboxed frame axe can't run in (no scripts there),
 * checked by its own test instead; frames are not entered (the app's only frame is that sandboxed
 * preview). `what` names the page in a failure.
 */
export async function expectNoViolations(page: Page, { exclude, what }: { exclude?: string; what?: string } = {}) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(
    ({ exclude }) =>
      (window as unknown as { axe: typeof import('axe-core') }).axe
        .run(exclude ? { exclude: [exclude] } : document, { resultTypes: ['violations'], iframes: false })
        .then((r) =>
          r.violations.map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })),
        ),
    { exclude },
  );
  expect(violations.map((v) => `${what ? `${what}: ` : ''}${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
}

/**
 * With E2E_SCREENSHOTS=1, a picture of `target` (a page, whole by default, or a part of one)
 * written to the test's output folder under E2E_OUTPUT_DIR and attached to it, for a person to look
 * at (README "Tests"); without it nothing, as the pictures cost about a second each and no test reads them.
 */
export async function picture(target: Page | Locator, name: string, opts: { fullPage?: boolean } = {}) {
  if (!process.env.E2E_SCREENSHOTS) return;
  const testInfo = test.info();
  const file = testInfo.outputPath(`${name}.png`);
  await target.screenshot({ path: file, ...('goto' in target ? { fullPage: opts.fullPage ?? true } : {}) });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

/**
 * Nothing on the page is wider than the screen at 1366 and 375 px (no sideways scrolling on a
 * phone), and a picture at each width (`picture`). `prepare` runs at each width first (to open a
 * menu, or to check a part of the page at that width).
 */
export async function screenshots(page: Page, name: string, prepare?: (width: number) => Promise<void>) {
  const viewport = page.viewportSize();
  for (const width of [1366, 375]) {
    await page.setViewportSize({ width, height: 900 });
    await prepare?.(width);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth),
      `${name} at ${width} px`,
    ).toBeLessThanOrEqual(width);
    await picture(page, `${name}-${width}`);
  }
  if (viewport) await page.setViewportSize(viewport);
}

/** A new admin (a fresh address) signs in (signInByForm) and creates a workspace of their own at /onboarding; its address (slug). */
export async function newWorkspace(page: Page, opts: { label?: string } = {}) {
  const name = `${opts.label ?? 'team'}-${randomUUID().slice(0, 8)}`;
  await signInByForm(page, uniqueEmail('admin'));
  await page.goto('/onboarding');
  await page.getByLabel('Workspace name').fill(name);
  await page.getByLabel('Address').fill(name);
  await page.getByRole('button', { name: 'Create workspace' }).click();
  await expect(page).toHaveURL(new RegExp(`/w/${name}$`));
  return name;
}

/** The service role's REST call through the gateway (test setup only): the rows written or read. */
export const serviceRest = (path: string, init: RequestInit = {}) => service(`/rest/v1/${path}`, init);

/** The service role's call to any of the stack's APIs (/rest/v1, /auth/v1, /storage/v1), for setup and checks. */
export async function service(path: string, init: RequestInit = {}) {
  const key = required('E2E_SERVICE_ROLE_KEY');
  const res = await fetch(`${required('E2E_API_URL')}${path}`, {
    ...init,
    headers: {
      apikey: key,
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      Prefer: 'return=representation',
      ...init.headers,
    },
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

/**
 * The codes sent to `email` as if sent `seconds` earlier: Auth counts a code's expiry and the wait
 * before the next from when it sent it, so this moves time for them instead of waiting it out.
 */
export async function sentEarlier(email: string, seconds: number) {
  const rows = await superuserSql(
    `update auth.users set confirmation_sent_at = confirmation_sent_at - make_interval(secs => $2),
       recovery_sent_at = recovery_sent_at - make_interval(secs => $2) where email = $1 returning id`,
    [email, seconds],
  );
  if (rows.length !== 1) throw new Error(`no user ${email}`);
}

/** The stack's database as its superuser (test setup only: moving clocks, writing volume). */
export async function superuserSql(text: string, params: unknown[] = []) {
  const db = new pg.Client({ connectionString: required('E2E_DB_URL') });
  await db.connect();
  try {
    return (await db.query(text, params)).rows;
  } finally {
    await db.end();
  }
}

/** The signed-in user's id, from the access token the app hands its realtime client. */
export async function userId(page: Page): Promise<string> {
  const { token } = await (await page.request.get('/realtime-token')).json();
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub;
}

/** An email as the catcher's API gives it (Mailpit's shape), the parts the specs read. */
export interface CaughtMail {
  ID: string;
  Subject: string;
  Text: string;
  HTML: string;
  From: { Name: string; Address: string };
  ReplyTo: { Address: string }[];
  Inline: { FileName: string; ContentType: string; ContentID: string; Size: number }[];
  Attachments: { FileName: string; ContentType: string; Size: number }[];
}

/** The newest email to `email` (notifications included) whose text part contains `text`, once it came. */
export async function mailWith(email: string, text: string): Promise<CaughtMail> {
  let found: CaughtMail | undefined;
  await expect
    .poll(
      async () => {
        for (const { ID } of await messagesTo(env.mailUrl, email, { notifications: true })) {
          const mail = await (await fetch(`${env.mailUrl}/api/v1/message/${ID}`)).json();
          if (mail.Text.includes(text)) return (found = mail) && true;
        }
        return false;
      },
      { timeout: 15_000, message: `an email to ${email} with "${text}"` },
    )
    .toBe(true);
  return found!;
}

/** Posts an email to inbound-email as Postmark would (basic auth in the webhook URL). */
export const inboundEmail = (mail: Record<string, unknown>) =>
  fetch(`${required('E2E_API_URL')}/functions/v1/inbound-email`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Basic ${btoa(`postmark:${required('E2E_INBOUND_EMAIL_SECRET')}`)}`,
    },
    body: JSON.stringify({ MessageID: randomUUID(), HtmlBody: '', Headers: [], Attachments: [], ...mail }),
  });
