// `npm run dev` as the README has a new developer run it: the stack, `remix dev` and the island
// watcher come up together, the app answers on loopback only, a sign-in code shows up in the
// terminal, and Ctrl-C (SIGINT) stops every part.
import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../supabase/local/process.ts';
import { freeBasePort, freePort, PROJECT_DIR, readStatus } from '../../supabase/local/stack.ts';
import { tempProject, type TempProject } from '../support/project.ts';

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3_000 });
    socket.once('connect', () => resolve(!!socket.destroy()));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => resolve(!socket.destroy())); // dropped, not refused: unreachable too
  });
}

describe('npm run dev', () => {
  let data: TempProject;
  beforeAll(() => {
    data = tempProject();
  });
  afterAll(() => data.remove());

  it('serves the app on loopback with the local stack, prints sign-in codes, and stops everything on Ctrl-C', async () => {
    const [appPort, stackPort] = [await freePort(), await freeBasePort()];
    const dev = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(PROJECT_DIR, 'scripts', 'dev.ts'),
        '--stack-port',
        String(stackPort),
        '--dir',
        data.dataDir,
      ],
      {
        cwd: PROJECT_DIR,
        env: { ...process.env, PORT: String(appPort), HOST: undefined },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    dev.stdout.on('data', (c) => (output += c));
    dev.stderr.on('data', (c) => (output += c));
    const exited = new Promise<number | null>((resolve) => dev.on('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${appPort}`;
    try {
      await expect
        .poll(async () => (await fetch(`${base}/login`).catch(() => null))?.status, { timeout: 90_000, interval: 250 })
        .toBe(200);
      expect(output).toContain(`API        http://127.0.0.1:${stackPort}`);

      // Loopback only unless HOST says otherwise: not reachable on the machine's other addresses.
      const outside = Object.values(os.networkInterfaces())
        .flat()
        .find((a) => a && a.family === 'IPv4' && !a.internal);
      if (outside) expect(await canConnect(outside.address, appPort)).toBe(false);

      const email = `dev-${Date.now()}@example.test`;
      const res = await fetch(`${base}/login`, {
        method: 'POST',
        headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email }),
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/login/verify');
      await expect
        .poll(() => output, { timeout: 15_000 })
        .toMatch(new RegExp(`\\[mail\\] to ${email.replace(/[.]/g, '\\.')} · code \\d{6}`));
    } finally {
      const children = readStatus(data.dataDir)?.processes ?? [];
      dev.kill('SIGINT');
      expect(await exited, output).toBe(0);
      for (const { pid } of children) expect(isAlive(pid)).toBe(false);
      expect(await canConnect('127.0.0.1', appPort)).toBe(false);
    }
  }, 150_000);
});
