import {
  codeFor,
  enterCode,
  expect,
  expectNoViolations,
  inNewDocument,
  mailCount,
  requestCode,
  screenshots,
  signIn,
  submitCode,
  test,
  uniqueEmail,
} from './fixtures.ts';

test.describe('sign in with JavaScript', () => {
  test('signs in with the emailed code typed into the six boxes and shows the email in the header', async ({
    page,
  }) => {
    const email = await signIn(page);
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('banner')).toContainText(email);
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  });

  test('accepts a pasted code with a space ("123 456")', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const email = uniqueEmail();
    await page.goto('/login');
    await requestCode(page, email);
    const code = await codeFor(email);
    const spaced = `${code.slice(0, 3)} ${code.slice(3)}`;
    const input = page.locator('input[data-input-otp]');
    await input.waitFor();
    await input.focus();
    await page.evaluate((text) => {
      const target = document.activeElement as HTMLInputElement;
      const data = new DataTransfer();
      data.setData('text/plain', text);
      target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, spaced);
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await expect(page.getByRole('banner')).toContainText(email);
  });

  test('a deep link to /account comes back to /account after signing in', async ({ page }) => {
    await page.goto('/account');
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Faccount$/);
    const email = uniqueEmail();
    await requestCode(page, email);
    await enterCode(page, await codeFor(email));
    await page.waitForURL(/\/account$/);
    await expect(page.getByRole('heading', { level: 1 })).toContainText(/account/i);
    await expect(page.getByRole('main')).toContainText(email);
  });

  test('a wrong code shows the catalogue message and keeps the email', async ({ page }) => {
    const email = uniqueEmail();
    await page.goto('/login');
    await requestCode(page, email);
    const code = await codeFor(email);
    const wrong = code === '000000' ? '111111' : '000000';
    await enterCode(page, wrong);
    await expect(
      page.getByText('That code is wrong or has expired. Check the latest email or send a new code.'),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/login\/verify/);
    await expect(page.getByRole('main')).toContainText(email);
    // The right code still works afterwards.
    await enterCode(page, code);
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  });

  test('after five wrong codes even the right one is refused: the code is used up, and a new one is offered', async ({
    page,
  }) => {
    const email = uniqueEmail();
    await page.goto('/login');
    await requestCode(page, email);
    const code = await codeFor(email);
    const wrong = code === '000000' ? '111111' : '000000';
    const invalid = page.getByText('That code is wrong or has expired. Check the latest email or send a new code.');
    for (let i = 0; i < 5; i++) {
      const response = page.waitForResponse(
        (r) => r.request().method() === 'POST' && r.url().includes('/login/verify'),
      );
      // Each answer is a new document (the page has no client-side router); the next code goes into that one.
      await inNewDocument(page, () => enterCode(page, wrong));
      expect((await response).status()).toBe(400);
      await expect(invalid).toBeVisible();
    }
    const response = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/login/verify'));
    await enterCode(page, code);
    expect((await response).status()).toBe(429);
    await expect(page.locator('#verify-code-error')).toHaveText(
      'That code was entered wrong too many times and no longer works. Send a new code.',
    );
    await expect(page.getByRole('button', { name: 'Send a new code' })).toBeVisible();
    await expect(page).toHaveURL(/\/login\/verify/);
    await expectNoViolations(page);
    await screenshots(page, 'verify-code-used-up');
  });

  test('asked again within the minute, the page says no new code was sent, and the first code still signs in', async ({
    page,
  }) => {
    const email = uniqueEmail('twice');
    await page.goto('/login');
    await requestCode(page, email);
    await expect(page.getByRole('main')).toContainText(`We sent a 6-digit code to ${email}.`);
    const code = await codeFor(email);
    // Back to the email step (another tab, a second click): Auth sends an address one code a minute.
    await page.goto('/login');
    await requestCode(page, email);
    await expect(page.getByTestId('code-not-sent')).toHaveText(
      `We didn't send a new code: one was sent to ${email} (or a sign-in link used) less than a minute ago. Enter the code from your latest email, or send a new one when the countdown ends.`,
    );
    await expect(page.getByText(/You can request a new code in \d+ seconds\./)).toBeVisible();
    expect(await mailCount(email)).toBe(1);
    await expectNoViolations(page);
    await screenshots(page, 'verify-no-new-code');
    await enterCode(page, code);
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  });

  test('"Send a new code" waits out the cooldown the server reports', async ({ page }) => {
    const email = uniqueEmail();
    await page.goto('/login');
    await requestCode(page, email);
    await codeFor(email);
    const resend = page.getByRole('button', { name: 'Send a new code' });
    await expect(resend).toBeDisabled();
    await expect(page.getByText(/You can request a new code in \d+ seconds\./)).toBeVisible();
    expect(await mailCount(email)).toBe(1);
  });

  test('"Use a different email" goes back to the email step', async ({ page }) => {
    await page.goto('/login');
    await requestCode(page, uniqueEmail());
    await page.getByRole('link', { name: 'Use a different email' }).click();
    await expect(page).toHaveURL(/\/login(\?|$)/);
    await expect(page.getByLabel(/email/i)).toBeVisible();
  });

  test('an invalid email address is refused at the field', async ({ page }) => {
    await page.goto('/login');
    await page.getByLabel(/email/i).fill('not-an-address');
    await page.getByLabel(/email/i).evaluate((el) => el.closest('form')?.setAttribute('novalidate', ''));
    await page.getByRole('button', { name: /code|continue|sign in/i }).click();
    await expect(page.getByText('Enter a valid email address.')).toBeVisible();
    await expect(page).toHaveURL(/\/login(\?|$)/);
  });

  test('sign-out clears the session', async ({ page }) => {
    await signIn(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await expect(page.getByRole('link', { name: /sign in/i }).first()).toBeVisible();
    const cookies = await page.context().cookies();
    expect(cookies.filter((c) => /^sb-.+-auth-token/.test(c.name))).toEqual([]);
    await page.goto('/account');
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Faccount$/);
  });

  test('a garbage session cookie sends /account to /login?redirectTo=%2Faccount', async ({ page, context }) => {
    const { hostname } = new URL(process.env.E2E_API_URL!);
    const name = `sb-${hostname.split('.')[0]}-auth-token`;
    await context.addCookies([
      { name, value: 'base64-eyJub3QiOiJhIHNlc3Npb24ifQ', url: process.env.E2E_BASE_URL! },
      { name: `${name}-x`, value: 'garbage', url: process.env.E2E_BASE_URL! },
    ]);
    await page.goto('/account');
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Faccount$/);
  });

  test('an expired session (tokens the auth server no longer knows) sends /account to /login', async ({
    page,
    context,
  }) => {
    await signIn(page);
    const cookies = await context.cookies();
    const auth = cookies.find((c) => /^sb-.+-auth-token$/.test(c.name));
    expect(auth).toBeTruthy();
    const session = JSON.parse(Buffer.from(auth!.value.replace(/^base64-/, ''), 'base64url').toString('utf8'));
    session.expires_at = 1; // long expired
    session.refresh_token = 'revoked-refresh-token';
    session.access_token = session.access_token.replace(/\.[^.]+$/, '.invalidsignature');
    await context.addCookies([
      { ...auth!, value: `base64-${Buffer.from(JSON.stringify(session)).toString('base64url')}` },
    ]);
    await page.goto('/account');
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Faccount$/);
  });
});

test.describe('sign in without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('signs in with the plain code field and the submit button', async ({ page }) => {
    const email = uniqueEmail('nojs');
    await page.goto('/login');
    await requestCode(page, email);
    const input = page.getByLabel(/code/i).first();
    await expect(input).toHaveAttribute('inputmode', 'numeric');
    await expect(input).toHaveAttribute('autocomplete', 'one-time-code');
    await expect(input).toHaveAttribute('pattern', '[^0-9]*([0-9][^0-9]*){6}');
    await enterCode(page, await codeFor(email), { javaScript: false });
    await submitCode(page);
    await page.waitForURL((url) => url.pathname === '/');
    await expect(page.getByRole('banner')).toContainText(email);
  });

  test('a code pasted as "123 456" is not cut off and signs in', async ({ page }) => {
    const email = uniqueEmail('nojs');
    await page.goto('/login');
    await requestCode(page, email);
    const code = await codeFor(email);
    const input = page.getByLabel(/code/i).first();
    // Typed key by key, as a paste is: the field's maxlength applies.
    await input.pressSequentially(`${code.slice(0, 3)} ${code.slice(3)}`);
    await expect(input).toHaveValue(`${code.slice(0, 3)} ${code.slice(3)}`);
    await submitCode(page);
    await page.waitForURL((url) => url.pathname === '/');
    await expect(page.getByRole('banner')).toContainText(email);
  });

  test('a deep link to /account returns there', async ({ page }) => {
    await page.goto('/account');
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Faccount$/);
    const email = uniqueEmail('nojs');
    await requestCode(page, email);
    await enterCode(page, await codeFor(email), { javaScript: false });
    await submitCode(page);
    await page.waitForURL(/\/account$/);
    await expect(page.getByRole('main')).toContainText(email);
  });

  test('"Send a new code" inside the cooldown shows the seconds from the server (429)', async ({ page }) => {
    const email = uniqueEmail('nojs');
    await page.goto('/login');
    await requestCode(page, email);
    await codeFor(email);
    const response = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send a new code' }).click();
    expect((await response).status()).toBe(429);
    await expect(page.getByText(/You can request a new code in \d+ seconds\./).first()).toBeVisible();
    expect(await mailCount(email)).toBe(1);
  });

  test('a wrong code keeps the email and shows the catalogue message', async ({ page }) => {
    const email = uniqueEmail('nojs');
    await page.goto('/login');
    await requestCode(page, email);
    const code = await codeFor(email);
    await enterCode(page, code === '000000' ? '111111' : '000000', { javaScript: false });
    await submitCode(page);
    await expect(
      page.getByText('That code is wrong or has expired. Check the latest email or send a new code.'),
    ).toBeVisible();
    await expect(page.getByRole('main')).toContainText(email);
  });

  test('sign-out works as a plain form POST', async ({ page }) => {
    const email = uniqueEmail('nojs');
    await page.goto('/login');
    await requestCode(page, email);
    await enterCode(page, await codeFor(email), { javaScript: false });
    await submitCode(page);
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await expect(page.getByRole('banner')).not.toContainText(email);
  });
});
