// npm run bench:render: the app's CPU per page, with no HTTP server around it. This build's Remix
// request handler (and BENCH_BASELINE's, scripts/lib/bench.ts) runs in this process against a fresh local
// stack that runs in another, so what is timed is the app's own work: routing, loaders and their
// Supabase calls, rendering, headers. Rounds alternate between the two builds; the table has the
// medians and the ratio's range. On a shared machine this is the steadiest way to tell whether a
// change made pages dearer (docs/decisions/028-route-matching-cache.md).
// BENCH_TICKETS=<n> (default 0): n more tickets from seed:bulk first, with bench:inbox's field, tags and saved
// views, and the inbox's views of issue 26 (open, five saved views, a tag) and the ticket pages of threads of 30 and
// 200 messages (docs/decisions/115-rows-as-markup.md) are timed too; BENCH_ONLY=<regular expression> times only the
// pages whose label matches (docs/decisions/112-one-props-object-and-the-handoff-as-text.md).
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { PROJECT_DIR, type StackInfo } from '@tend/supabase-local';
import { buildApp } from './lib/app-server.ts';
import { BASELINE, median, range, seedBulk, signIn, startApp } from './lib/bench.ts';
import { addInboxData, addThreads } from './lib/inbox-data.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400); // per round and build
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const AGENT = 'agent@acme.test';
const VIEWS_AGENT = 'agent2@acme.test'; // the agent with five saved views (scripts/lib/inbox-data.ts)
const TICKETS = Number(process.env.BENCH_TICKETS ?? 0);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-render-'));
chmodSync(dir, 0o755);

// The stack in its own process: its gateway's and services' CPU is not the app's.
const stackProcess = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    `import { startStack } from '@tend/supabase-local';
     const stack = await startStack({ port: 0, dir: process.argv[1], ephemeral: true, log: () => undefined });
     console.log(JSON.stringify(stack));
     process.stdin.resume();
     process.stdin.on('end', async () => { await stack.stop(); process.exit(0); });`,
    path.join(dir, 'data'),
  ],
  { cwd: PROJECT_DIR, stdio: ['pipe', 'pipe', 'inherit'] }, // where @tend/supabase-local resolves
);
const stack = await new Promise<StackInfo>((resolve, reject) => {
  let out = '';
  stackProcess.stdout!.on('data', (chunk: Buffer) => {
    out += chunk;
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line) resolve(JSON.parse(line));
  });
  stackProcess.once('exit', (code) => reject(new Error(`the stack exited with ${code} before it started`)));
});

type Handler = (request: Request) => Promise<Response>;

/** A build's request handler, with the @remix-run/node of the project it was built from. */
async function handlerOf(buildDir: string, projectDir: string): Promise<Handler> {
  const { createRequestHandler } = (await import(
    pathToFileURL(createRequire(path.join(projectDir, 'package.json')).resolve('@remix-run/node')).href
  )) as typeof import('@remix-run/node');
  const build = (await import(pathToFileURL(path.join(buildDir, 'index.js')).href)) as ServerBuild;
  return createRequestHandler(build, 'production');
}

try {
  let threads: { number: number; messages: number }[] = [];
  if (TICKETS > 0) {
    seedBulk(stack, TICKETS);
    threads = await addThreads(stack, AGENT, [30, 200]);
    await addInboxData(stack, AGENT, VIEWS_AGENT);
  }
  // Built and served once to sign in through the app's own forms, as bench:pages does.
  const server = await startApp(dir, stack);
  const cookie = await signIn(server.base, stack.mailUrl, AGENT);
  const viewsCookie = TICKETS > 0 ? await signIn(server.base, stack.mailUrl, VIEWS_AGENT) : '';
  await server.stop();

  // The builds read their environment when imported (app/lib/env.server.ts).
  Object.assign(process.env, {
    NODE_ENV: 'production',
    SUPABASE_URL: stack.apiUrl,
    SUPABASE_ANON_KEY: stack.anonKey,
    SESSION_SECRET: 'tend-bench-render-session-secret-0123456789',
  });
  const builds: [string, Handler][] = [['this build', await handlerOf(path.join(dir, 'app'), PROJECT_DIR)]];
  if (BASELINE) {
    buildApp(path.join(dir, 'baseline'), BASELINE);
    builds.push(['baseline', await handlerOf(path.join(dir, 'baseline'), BASELINE)]);
  }

  const allPages: [label: string, path: string, headers: Record<string, string>, status: number][] = [
    ['/login (anonymous)', '/login', {}, 200],
    ['/account', '/account', { cookie }, 200],
    ['inbox', '/w/acme', { cookie }, 200],
    ['inbox search "refund"', '/w/acme?view=all&q=refund', { cookie }, 200],
    ['ticket page', '/w/acme/tickets/1', { cookie }, 200],
    ['portal request', '/support/acme', { cookie }, 200],
  ];
  if (TICKETS > 0)
    allPages.push(
      ['inbox: open', '/w/acme?view=open', { cookie }, 200],
      ['inbox: 5 saved views (agent 2)', '/w/acme', { cookie: viewsCookie }, 200],
      ['inbox: tag billing', '/w/acme?view=all&tag=billing', { cookie }, 200],
      ...threads.map((t): [string, string, Record<string, string>, number] => [
        `ticket page, ${t.messages} messages`,
        `/w/acme/tickets/${t.number}`,
        { cookie },
        200,
      ]),
    );
  const pages = allPages.filter(([label]) => !ONLY || ONLY.test(label));
  const get = async (handler: Handler, url: string, headers: Record<string, string>) => {
    const response = await handler(
      new Request(`http://localhost${url}`, { headers: { host: 'localhost', ...headers } }),
    );
    await response.arrayBuffer();
    return response.status;
  };
  const rows: Record<string, string | number>[] = [];
  for (const [label, url, headers, status] of pages) {
    for (const [name, handler] of builds) {
      const got = await get(handler, url, headers);
      if (got !== status) throw new Error(`${name}: GET ${url} answered ${got}`);
    }
    const cpu = builds.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, [, handler]] of builds.entries()) {
        for (let n = 0; n < 50; n++) await get(handler, url, headers); // this build's JIT, warm again
        const before = process.cpuUsage();
        for (let n = 0; n < REQUESTS; n++) await get(handler, url, headers);
        const used = process.cpuUsage(before);
        cpu[i]!.push((used.user + used.system) / 1000 / REQUESTS);
      }
    }
    const row: Record<string, string | number> = { page: label, 'CPU ms/page': +median(cpu[0]!).toFixed(3) };
    if (BASELINE) {
      const ratios = cpu[0]!.map((ms, i) => ms / cpu[1]![i]!);
      row['baseline CPU ms/page'] = +median(cpu[1]!).toFixed(3);
      row['÷ baseline'] = +median(ratios).toFixed(2);
      row.rounds = range(ratios);
    }
    rows.push(row);
  }
  console.log(
    `\nCPU per page in this process (request handler, loaders, their Supabase calls, rendering), medians of ${ROUNDS} rounds of ${REQUESTS}`,
  );
  if (BASELINE) console.log(`baseline: ${BASELINE}, timed in the same rounds`);
  console.table(rows);
} finally {
  stackProcess.stdin!.end();
  await new Promise((resolve) => stackProcess.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
