// npm test: unit, integration and end-to-end suites in turn, then one summary line
// (`N passed, N failed`) over every runner. Exit code 1 if anything failed.
import './node-check.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const out = mkdtempSync(path.join(os.tmpdir(), 'tend-test-results-'));
const only = process.argv[2]; // optional: unit | integration | e2e
const totals = { passed: 0, failed: 0 };

function run(label, command, args, env = {}) {
  console.log(`\n=== ${label} ===`);
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function vitest(project) {
  const file = path.join(out, `vitest-${project}.json`);
  const status = run(`vitest: ${project}`, bin('vitest'), ['run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile=${file}`]);
  if (!existsSync(file)) {
    totals.failed += 1; // the runner itself failed before reporting
    return;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  totals.passed += r.numPassedTests;
  totals.failed += r.numFailedTests + (status !== 0 && r.numFailedTests === 0 ? 1 : 0);
}

function playwright() {
  const hasSpecs = existsSync(path.join(root, 'tests', 'e2e')) && readdirSync(path.join(root, 'tests', 'e2e')).some((f) => f.endsWith('.spec.ts'));
  if (!hasSpecs || !existsSync(path.join(root, 'playwright.config.ts'))) return;
  const file = path.join(out, 'playwright.json');
  const status = run('playwright: e2e', bin('playwright'), ['test', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: file });
  if (!existsSync(file)) {
    totals.failed += 1;
    return;
  }
  const { stats } = JSON.parse(readFileSync(file, 'utf8'));
  totals.passed += stats.expected + stats.flaky;
  totals.failed += stats.unexpected + (status !== 0 && stats.unexpected === 0 ? 1 : 0);
}

if (!only || only === 'unit') vitest('unit');
if (!only || only === 'integration') vitest('integration');
if (!only || only === 'e2e') playwright();

console.log(`\n${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed ? 1 : 0);
