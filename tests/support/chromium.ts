// The one way tests get a Chromium: Playwright's managed build when it is installed
// (`npx playwright install chromium`), else the system's (Debian) with flags that keep it quiet,
// offline and working as root in a container. Headless, the system's old headless shell
// (`apt-get install chromium-headless-shell`), as Playwright's own headless runs use its
// chromium-headless-shell build: the full browser's new headless mode costs ~2× the CPU, which on
// two cores is the end-to-end suite's time (docs/benchmarks.md "CI time: the headless shell").
import { existsSync } from 'node:fs';
import { chromium, type Browser, type LaunchOptions } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const SYSTEM_HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';

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

/**
 * Launch options for Playwright (also used by playwright.config.ts, whose runs are headless unless
 * `--headed`). Throws when there is no Chromium at all.
 */
export function chromiumLaunchOptions({ headless = !process.argv.includes('--headed') } = {}): LaunchOptions {
  if (managedChromium()) return {};
  const executablePath = headless && existsSync(SYSTEM_HEADLESS_SHELL) ? SYSTEM_HEADLESS_SHELL : SYSTEM_CHROMIUM;
  if (!existsSync(executablePath)) {
    throw new Error(
      `No Chromium found: neither Playwright's managed build nor ${SYSTEM_CHROMIUM}. ` +
        'Install one with `apt-get install chromium chromium-headless-shell` (Debian/Ubuntu) or `npx playwright install chromium`.',
    );
  }
  // Chromium's sandbox needs user namespaces that a root shell in a container rarely has.
  const args = process.getuid?.() === 0 ? ['--no-sandbox', ...SYSTEM_ARGS] : [...SYSTEM_ARGS];
  return { executablePath, args };
}

/** A headless Chromium; close it when done (`await browser.close()`). */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const headless = options.headless ?? true;
  const base = chromiumLaunchOptions({ headless });
  return chromium.launch({
    ...base,
    ...options,
    args: [...(base.args ?? []), ...(options.args ?? [])],
    headless,
  });
}
