// The integration run's templates dir (tests/support/template.ts): made before the first file,
// removed after the last; forked workers inherit it through the environment.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEMPLATES_ENV } from '../support/template.ts';

export default function setup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-templates-'));
  chmodSync(dir, 0o755); // as root, Postgres runs as an unprivileged user that must reach it
  process.env[TEMPLATES_ENV] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
