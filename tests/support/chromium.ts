// The one way tests get a Chromium: Playwright's managed build when it is installed
// (`npx playwright install chromium`), else the system's /usr/bin/chromium (Debian) with flags
// that keep it quiet, offline and working as root in a container.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

const SYSTEM_ARGS = [
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

function managedChromium(): string | undefined {
  try {
    const path = chromium.executablePath();
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined; // playwright-core throws when its browser registry has no chromium entry
  }
}

/** Launch options for Playwright (also used by playwright.config.ts). Throws when there is no Chromium at all. */
export function chromiumLaunchOptions(): LaunchOptions {
  if (managedChromium()) return {};
  if (!existsSync(SYSTEM_CHROMIUM)) {
    throw new Error(
      `No Chromium found: neither Playwright's managed build nor ${SYSTEM_CHROMIUM}. ` +
        'Install one with `apt-get install chromium` (Debian/Ubuntu) or `npx playwright install chromium`.',
    );
  }
  // Chromium's sandbox needs user namespaces that a root shell in a container rarely has.
  const args = process.getuid?.() === 0 ? ['--no-sandbox', ...SYSTEM_ARGS] : [...SYSTEM_ARGS];
  return { executablePath: SYSTEM_CHROMIUM, args };
}

/** A headless Chromium; close it when done (`await browser.close()`). */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const base = chromiumLaunchOptions();
  return chromium.launch({
    ...base,
    ...options,
    args: [...(base.args ?? []), ...(options.args ?? [])],
    headless: options.headless ?? true,
  });
}
