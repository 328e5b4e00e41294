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
const only = process.argv[2]; // optional: lint | unit | integration | e2e
const totals = { passed: 0, failed: 0 };
// What failed, repeated at the end: CI keeps only the tail of a long log.
const failures = [];
const firstLine = (message = '') =>
  message
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .find((l) => l.trim()) ?? '';

function run(label, command, args, env = {}) {
  console.log(`\n=== ${label} ===`);
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function vitest(project) {
  const file = path.join(out, `vitest-${project}.json`);
  const status = run(`vitest: ${project}`, bin('vitest'), [
    'run',
    '--project',
    project,
    '--reporter=default',
    '--reporter=json',
    `--outputFile=${file}`,
  ]);
  if (!existsSync(file)) {
    totals.failed += 1; // the runner itself failed before reporting
    return;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const found = r.testResults.flatMap((file) => {
    const name = path.relative(root, file.name);
    const failed = file.assertionResults.filter((t) => t.status === 'failed');
    // A file that failed to load or in a hook counts once.
    if (file.status === 'failed' && !failed.length)
      return [
        `${name}: ${firstLine(file.message) || 'failed outside its tests (in a hook, or loading): see the log above'}`,
      ];
    return failed.map((t) => `${name} › ${t.fullName}: ${firstLine(t.failureMessages[0])}`);
  });
  failures.push(...found);
  totals.passed += r.numPassedTests;
  totals.failed += found.length + (status !== 0 && !found.length ? 1 : 0);
}

function playwright() {
  const hasSpecs =
    existsSync(path.join(root, 'tests', 'e2e')) &&
    readdirSync(path.join(root, 'tests', 'e2e')).some((f) => f.endsWith('.spec.ts'));
  if (!hasSpecs || !existsSync(path.join(root, 'playwright.config.ts'))) return;
  const file = path.join(out, 'playwright.json');
  const status = run('playwright: e2e', bin('playwright'), ['test', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: file,
  });
  if (!existsSync(file)) {
    totals.failed += 1;
    return;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const { stats } = report;
  totals.passed += stats.expected + stats.flaky;
  totals.failed += stats.unexpected + (status !== 0 && stats.unexpected === 0 ? 1 : 0);
  for (const e of report.errors ?? []) failures.push(`playwright: ${firstLine(e.message)}`);
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests) {
        if (t.status !== 'unexpected') continue;
        const last = t.results.at(-1);
        failures.push(
          `tests/e2e/${spec.file}:${spec.line} › ${[...titles, spec.title].join(' › ')}: ${firstLine(last?.error?.message)}`,
        );
      }
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const suite of report.suites) walk(suite, []);
}

/** A check that passes or fails as a whole (lint, types): one test each in the summary. */
function check(label, command, args) {
  if (run(label, bin(command), args) === 0) totals.passed += 1;
  else {
    totals.failed += 1;
    failures.push(`${label}: see its output above`);
  }
}

if (!only || only === 'lint') {
  check('lint and format (biome check)', 'biome', ['check', '.']);
  check('types (tsc --noEmit)', 'tsc', ['--noEmit']);
}
if (!only || only === 'unit') vitest('unit');
if (!only || only === 'integration') vitest('integration');
if (!only || only === 'e2e') playwright();

if (failures.length) console.log(`\n=== failed ===\n${failures.map((f) => `- ${f}`).join('\n')}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed ? 1 : 0);
