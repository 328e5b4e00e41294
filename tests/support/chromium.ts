// Launch options for Chromium: Playwright's own build when installed, else the system's
// /usr/bin/chromium (Debian) with flags that keep it quiet and working as root in a container.
import { existsSync } from 'node:fs';
import { chromium, type LaunchOptions } from '@playwright/test';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

function managedChromium(): string | null {
  try {
    const path = chromium.executablePath();
    return path && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

export function chromiumLaunchOptions(): LaunchOptions {
  if (managedChromium()) return {};
  if (!existsSync(SYSTEM_CHROMIUM)) throw new Error('No Chromium: run `npx playwright install chromium` or `apt-get install -y chromium`.');
  const args = [
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return { executablePath: SYSTEM_CHROMIUM, args };
}
