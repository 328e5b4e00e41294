// Where Deno comes from: the `deno` npm package's platform binary (@deno/<platform>), found
// directly, so it works whether or not npm ran the package's postinstall (package.json allowScripts
// keeps it off: the script only copies the same binary).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The Deno binary, or an error that says how to get it. */
export function denoBinary(): string {
  const platform = os.platform();
  const arch = os.arch();
  const pkg = `@deno/${platform}-${arch}${platform === 'linux' ? '-glibc' : ''}`;
  const exe = platform === 'win32' ? 'deno.exe' : 'deno';
  try {
    const file = path.join(path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), exe);
    if (existsSync(file)) return file;
  } catch {
    /* not installed for this platform */
  }
  throw new Error(`Deno for ${platform}-${arch} is missing (${pkg}, from the deno package); run npm install.`);
}

/**
 * Deno's cache (npm packages, compiled modules): inside this checkout's node_modules, so every stack
 * and test shares one download and a fresh clone creates it on first use.
 */
export const DEFAULT_DENO_DIR = path.resolve(here, '..', '..', '..', 'node_modules', '.cache', 'deno');

/** The script every function process runs first (deno/boot.ts). */
export const BOOT_FILE = path.join(here, 'deno', 'boot.ts');
