// Edge Functions on real Deno, called as clients call them: supabase-js invoke and plain fetch
// through the gateway, answers compared with hosted's (docs/reference/storage-functions.md B).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { isAlive } from '@tend/supabase-local';
import { clientFor, signInWithCode } from '../support/stack.ts';
import { accessToken } from '../../scripts/lib/jwt.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const logs: string[] = [];
const stack = stackFixture({
  fixture: 'functions-project',
  log: (line) => logs.push(line),
  configure: (c) => {
    c.edgeRuntime.wallClockLimitMs = 8000;
    c.edgeRuntime.memoryLimitMb = 64;
  },
});
const fnDir = () => path.join(stack.project.projectDir, 'supabase', 'functions');
const writeFunction = (name: string, source: string) => {
  mkdirSync(path.join(fnDir(), name), { recursive: true });
  writeFileSync(path.join(fnDir(), name, 'index.ts'), source);
};
const call = (name: string, init: RequestInit = {}) => fetch(`${stack.apiUrl}/functions/v1/${name}`, init);
const withKey = (init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { apikey: stack.anonKey, ...(init.headers as Record<string, string>) },
});
/** Waits until the stack's log has a line matching `re` (the log is written as the worker prints). */
function logLine(re: RegExp, timeoutMs = 10_000): Promise<string> {
  return waitFor(
    () => `a log line matching ${re}:\n${logs.join('\n')}`,
    () => logs.find((l) => re.test(l)),
    timeoutMs,
  );
}

beforeAll(() => {
  writeFileSync(path.join(fnDir(), '.env'), 'GREETING="hello from .env"\nSUPABASE_NOT_ALLOWED=x\n');
});

describe('invoking', () => {
  it('supabase.functions.invoke reaches the function with a JSON body, the caller’s JWT and the platform env', async () => {
    const { data, error } = await clientFor(stack).functions.invoke('echo', { body: { hello: 'world' } });
    expect(error).toBeNull();
    expect(data).toMatchObject({
      method: 'POST',
      path: '/echo',
      authorization: `Bearer ${stack.anonKey}`,
      body: JSON.stringify({ hello: 'world' }),
    });
    expect(data.env).toEqual({
      SUPABASE_URL: stack.apiUrl,
      SUPABASE_ANON_KEY: stack.anonKey,
      SUPABASE_SERVICE_ROLE_KEY: stack.serviceRoleKey,
      SUPABASE_DB_URL: stack.dbUrl,
      GREETING: 'hello from .env',
      SUPABASE_NOT_ALLOWED: null, // the CLI skips secrets named SUPABASE_*
      LEAK: null,
    });
    // Only its own variables: nothing from the stack's process environment.
    expect(data.envNames).not.toContain('HOME');
    expect(data.envNames).not.toContain('TEND_FUNCTION_ENTRYPOINT');
  });

  it('passes a signed-in user’s access token through', async () => {
    const { c, session } = await signInWithCode(stack);
    const { data, error } = await c.functions.invoke('echo', { method: 'GET' });
    expect(error).toBeNull();
    expect(data.authorization).toBe(`Bearer ${session.access_token}`);
  });

  it('serves sub-paths, the query string and every method', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await call('echo/items/42?expand=yes', withKey({ method, body: method === 'GET' ? undefined : 'x' }));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ method, path: '/echo/items/42', query: { expand: 'yes' } });
    }
  });

  it('serves export default { fetch }, a config.toml entrypoint, and npm: packages through a deno.json import map', async () => {
    expect(await (await call('default-export/x', withKey())).text()).toBe('default export saw /default-export/x');
    expect(await (await call('custom-entry', withKey())).text()).toBe('custom entrypoint');
    const npm = await call('with-deno-json', withKey());
    expect(npm.status).toBe(200);
    expect(await npm.json()).toEqual({ twoDays: 172_800_000 });
  });

  it('prints what a function logs into the stack’s log, prefixed with its name', async () => {
    await call('echo/logged', withKey());
    expect(await logLine(/^\[functions\] echo: echo GET \/echo\/logged$/)).toBeTruthy();
  });
});

describe('verify_jwt', () => {
  it('refuses a call without a JWT with hosted’s 401 body', async () => {
    const res = await call('echo');
    expect(res.status).toBe(401);
    expect(res.headers.get('sb-error-code')).toBe('UNAUTHORIZED_NO_AUTH_HEADER');
    expect(await res.json()).toEqual({ code: 401, message: 'Missing authorization header' });
  });

  it('refuses a forged or malformed token', async () => {
    const forged = `${stack.anonKey.slice(0, -4)}abcd`;
    const bad = await call('echo', { headers: { Authorization: `Bearer ${forged}` } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('sb-error-code')).toBe('UNAUTHORIZED_LEGACY_JWT');
    expect(await bad.json()).toEqual({ code: 401, message: 'Invalid JWT' });
    const notBearer = await call('echo', { headers: { Authorization: `Token ${stack.anonKey}` } });
    expect(notBearer.status).toBe(401);
    expect(notBearer.headers.get('sb-error-code')).toBe('UNAUTHORIZED_INVALID_JWT_FORMAT');
  });

  it('refuses a token once it has expired, though it was let through before', async () => {
    const token = await accessToken(stack.jwtSecret, { sub: crypto.randomUUID() }, 2);
    const auth = withKey({ headers: { Authorization: `Bearer ${token}` } });
    expect((await call('echo', auth)).status).toBe(200);
    const refused = await waitFor('the expired token refused', async () => {
      const res = await call('echo', auth);
      return res.status === 401 && res;
    });
    expect(refused.headers.get('sb-error-code')).toBe('UNAUTHORIZED_LEGACY_JWT');
  });

  it('lets anyone call a function with verify_jwt = false', async () => {
    const res = await call('open');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ open: true, authorization: null });
  });
});

describe('isolation', () => {
  it('keeps each function’s environment to itself; files are readable under supabase/functions/ only', async () => {
    expect((await call('open')).status).toBe(200); // sets LEAK in its own process
    const { data } = await clientFor(stack).functions.invoke('echo');
    expect(data.env.LEAK).toBeNull();
    // The CLI mounts supabase/functions/ whole (read-only): other folders there are readable, the project isn't.
    expect([data.otherFunction, data.shared, data.project]).toEqual(['read', 'read', 'NotCapable']);
  });

  it('imports shared files from any folder under supabase/functions/ and the targets of its import map', async () => {
    const res = await call('with-utils', withKey());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ text: 'HELLO DENO!', stamp: 'stamped outside' });
  });
});

describe('answers as hosted', () => {
  it('404s an unknown, disabled or _shared name', async () => {
    for (const name of ['nope', 'disabled', '_shared', '']) {
      const res = await call(name, withKey());
      expect(res.status, name).toBe(404);
      expect(res.headers.get('sb-error-code')).toBe('NOT_FOUND');
      expect(await res.json()).toEqual({ code: 'NOT_FOUND', message: 'Requested function was not found' });
    }
  });

  it('passes a handler’s thrown error on as Deno.serve’s 500, and the worker keeps serving', async () => {
    const first = await call('throws', withKey());
    expect(first.status).toBe(500);
    expect(await first.text()).toBe('Internal Server Error');
    expect(first.headers.get('sb-error-code')).toBe('EDGE_FUNCTION_ERROR');
    await logLine(/^\[functions\] throws: .*handler failed on purpose/);
    const second = await call('throws', withKey());
    expect(await second.text()).toBe('still alive after 2 calls');
  });

  it('answers 500 WORKER_ERROR when a worker crashes, and the other functions are unaffected', async () => {
    const res = await call('crash', withKey());
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      code: 'WORKER_ERROR',
      message: 'Function exited due to an error (please check logs)',
    });
    await logLine(/^\[functions\] crash: .*crashed on purpose/);
    expect((await call('echo', withKey())).status).toBe(200);
  });

  it('answers 503 BOOT_ERROR for a syntax error, logs it by name, and serves the fix on the next request', async () => {
    writeFunction('broken', "Deno.serve(() => new Response('never' ;\n");
    const res = await call('broken', withKey());
    expect(res.status).toBe(503);
    expect(res.headers.get('sb-error-code')).toBe('BOOT_ERROR');
    expect(await res.json()).toEqual({ code: 'BOOT_ERROR', message: 'Function failed to start (please check logs)' });
    await logLine(/^\[functions\] broken: worker boot error:/);
    writeFunction('broken', "Deno.serve(() => new Response('fixed'));\n");
    expect(await (await call('broken', withKey())).text()).toBe('fixed');
  });

  it('serves the edited code on the next request', async () => {
    writeFunction('edited', "Deno.serve(() => new Response('first version'));\n");
    expect(await (await call('edited', withKey())).text()).toBe('first version');
    writeFunction('edited', "Deno.serve(() => new Response('second version'));\n");
    expect(await (await call('edited', withKey())).text()).toBe('second version');
  });

  it('ends a worker past its wall-clock limit with 546 WORKER_LIMIT', async () => {
    const res = await call('slow', withKey());
    expect(res.status).toBe(546);
    expect(await res.json()).toEqual({
      code: 'WORKER_LIMIT',
      message: 'Function failed due to not having enough compute resources (please check logs)',
    });
    await logLine(/^\[functions\] slow: wall clock time limit reached$/);
  });

  it('ends a worker past its memory limit with 546 WORKER_LIMIT', async () => {
    const res = await call('hog', withKey());
    expect(res.status).toBe(546);
    expect((await res.json()).code).toBe('WORKER_LIMIT');
    await logLine(/^\[functions\] hog: Memory limit exceeded$/);
  });

  it('rewrites an HTML answer to a GET as text/plain, as hosted does without a custom domain', async () => {
    writeFunction(
      'page',
      "Deno.serve(() => new Response('<h1>hi</h1>', { headers: { 'content-type': 'text/html; charset=utf-8' } }));\n",
    );
    const res = await call('page', withKey());
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });
});

describe('CORS', () => {
  it('hands preflights to the function, unchecked, and adds no CORS headers of its own', async () => {
    const pre = await call('echo', {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:3000',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, x-client-info, apikey, content-type',
      },
    });
    expect(pre.status).toBe(200);
    expect(await pre.text()).toBe('ok');
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')).toBe('authorization, x-client-info, apikey, content-type');
    // A platform error carries none: a browser reports it as a CORS failure, as on hosted.
    const missing = await call('nope', { headers: { Origin: 'http://localhost:3000' } });
    expect(missing.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('processes', () => {
  it('runs a Deno process per function and leaves none behind when the stack stops', async () => {
    // A request in progress keeps its worker busy until the stack stops.
    const pending = call('slow', withKey()).catch(() => undefined);
    const deno = await waitFor(
      () => `a worker for slow: ${JSON.stringify(stack.processes())}`,
      () => {
        const found = stack.processes().filter((p) => p.name.startsWith('deno '));
        return found.some((p) => p.name === 'deno slow') && found;
      },
      10_000,
    );
    expect(deno.every((p) => isAlive(p.pid))).toBe(true);
    await stack.stop();
    await pending;
    expect(deno.filter((p) => isAlive(p.pid))).toEqual([]);
  });
});
