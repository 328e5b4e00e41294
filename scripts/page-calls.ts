// npm run page-calls: which requests one signed-in page makes to the gateway (docs/decisions/082-page-calls.md).
// A production build on a fresh local stack (the seed only); an agent signs in, then each page is
// fetched PAGE_CALLS_TIMES times in a row by one curl over one connection (a process of its own, so
// the client's CPU is not this process's). Printed: the requests the gateway saw per fetch of the page
// (method, path, status), and per fetch the CPU of the app's workers, of Postgres + PostgREST, and of this
// process (the gateway and the in-process services: Auth, storage…), beside the page's RPC alone
// (PostgREST through the gateway, by curl, with the agent's token).
//   PAGE_CALLS_TIMES=200 npm run page-calls
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '@tend/supabase-local';
import { cpuMs, restHeadersOf, signIn, startApp } from './lib/bench.ts';

const TIMES = Number(process.env.PAGE_CALLS_TIMES ?? 200);

// Every request any server of this process answers (the gateway is the one the app talks to).
type Seen = { method: string; url: string; status: number };
let seen: Seen[] | null = null;
const createServer = http.createServer.bind(http) as (...args: unknown[]) => http.Server;
(http as { createServer: unknown }).createServer = (...args: unknown[]) => {
  const server = createServer(...args);
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.on('finish', () => seen?.push({ method: req.method ?? '', url: req.url ?? '', status: res.statusCode }));
  });
  return server;
};

const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-page-calls-'));
chmodSync(dir, 0o755);
const stack = await startStack({ port: 0, dir: path.join(dir, 'data'), ephemeral: true, log: () => undefined });
let app: Awaited<ReturnType<typeof startApp>> | undefined;
try {
  app = await startApp(dir, stack);
  const cookie = await signIn(app.base, stack.mailUrl, 'agent@acme.test');
  const rest = await restHeadersOf(stack, cookie);
  // One curl for `times` fetches over one kept-alive connection, as a browser or autocannon makes them.
  const curl = (url: string, headers: Record<string, string>, times = 1) =>
    new Promise<void>((resolve, reject) => {
      const config = [
        ...Object.entries(headers).map(([k, v]) => `header = "${k}: ${v}"`),
        ...Array.from({ length: times }, () => `url = "${url}"\noutput = "/dev/null"`),
      ].join('\n');
      const child = spawn('curl', ['-s', '--fail', '-K', '-'], { stdio: ['pipe', 'ignore', 'ignore'] });
      child.stdin.end(config);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`curl ${url}: exit ${code}`))));
    });
  const stackPids = stack.processes().map((p) => p.pid);
  const own = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const measure = async (label: string, url: string, headers: Record<string, string>) => {
    await curl(url, headers, 50); // warm: JIT, plans, caches (each worker the connection reaches)
    seen = [];
    const before = { app: cpuMs([app!.pid])!, db: cpuMs(stackPids)!, bench: own() };
    await curl(url, headers, TIMES);
    const after = { app: cpuMs([app!.pid])!, db: cpuMs(stackPids)!, bench: own() };
    const per = (k: 'app' | 'db' | 'bench') => ((after[k] - before[k]) / TIMES).toFixed(2);
    console.log(`\n${label}: CPU ms per fetch (${TIMES}) app ${per('app')}, db ${per('db')}, gateway ${per('bench')}`);
    // The gateway's requests per fetch of the page, by method and path.
    const counts = new Map<string, number>();
    for (const s of seen) {
      const key = `${s.method} ${s.url.split('?')[0]} ${s.status}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    seen = null;
    console.table([...counts].map(([request, n]) => ({ request, 'per fetch': +(n / TIMES).toFixed(3) })));
  };
  const page = { cookie };
  await measure('inbox page /w/acme', `${app.base}/w/acme`, page);
  await measure('ticket page /w/acme/tickets/3', `${app.base}/w/acme/tickets/3`, page);
  await measure('the inbox call alone', `${stack.apiUrl}/rest/v1/rpc/inbox?p_slug=acme&p_limit=25`, rest);
  await measure('the ticket_page call alone', `${stack.apiUrl}/rest/v1/rpc/ticket_page?p_slug=acme&p_number=3`, rest);
} finally {
  await app?.stop();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
