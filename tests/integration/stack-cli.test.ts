// `npm run stack -- …` as a developer runs it: ready banner, status, port clash, clean stop.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeBasePort, isAlive } from '@tend/supabase-local';
import { tempProject, type TempProject } from '../../scripts/lib/project.ts';
import { ready, run } from '../support/cli.ts';

describe('stack CLI', () => {
  let project: TempProject;
  let port: number;
  beforeAll(() => {
    project = tempProject();
  });
  afterAll(() => project.remove());

  it('starts, reports status as JSON, and stops every child on SIGTERM', async () => {
    // A port probed free can be taken (by a server of a test running alongside) before the CLI
    // binds it; with --port given the CLI then says so and exits, and the test picks other ports.
    let start: ReturnType<typeof run>;
    for (let attempt = 1; ; attempt++) {
      port = await freeBasePort();
      start = run(['start', '--port', String(port), '--dir', project.dataDir, '--project', project.projectDir]);
      if ((await ready(start)) === 'ready') break;
      if (!/^Port \d+ /m.test(start.output()) || attempt === 3)
        throw new Error(`stack CLI exited before it was ready:\n${start.output()}`);
    }
    expect(start.output()).toContain(`API URL          http://127.0.0.1:${port}`);
    expect(start.output()).toContain('anon key         eyJ');

    const status = run(['status', '--json', '--dir', project.dataDir]);
    expect(await status.exit).toBe(0);
    const info = JSON.parse(status.output());
    expect(Object.keys(info).sort()).toEqual([
      'anonKey',
      'apiUrl',
      'dbUrl',
      'jwtSecret',
      'mailUrl',
      'publishableKey',
      'secretKey',
      'serviceRoleKey',
      'smtpPort',
    ]);
    expect(info.dbUrl).toBe(`postgresql://postgres:postgres@127.0.0.1:${port + 1}/postgres`);
    expect(info.smtpPort).toBe(port + 4);

    const { readStatus } = await import('@tend/supabase-local');
    const pids = readStatus(project.dataDir)!.processes.map((p) => p.pid);
    expect(pids.length).toBe(2);

    // reset on the running stack: back to migrations + seed, PostgREST keeps serving.
    const headers = { apikey: info.serviceRoleKey, 'content-type': 'application/json' };
    const added = await fetch(`${info.apiUrl}/rest/v1/notes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ owner_id: '11111111-1111-1111-1111-111111111111', body: 'extra' }),
    });
    expect(added.status).toBe(201);
    const reset = run(['reset', '--dir', project.dataDir, '--project', project.projectDir]);
    expect(await reset.exit).toBe(0);
    expect(reset.output()).toMatch(/2 migration\(s\) applied, seed loaded/);
    await expect
      .poll(async () => (await fetch(`${info.apiUrl}/rest/v1/notes?select=body&order=id`, { headers })).json(), {
        timeout: 15_000,
      })
      .toEqual([{ body: 'alice note' }, { body: 'bob note' }]);

    start.child.kill('SIGTERM');
    expect(await start.exit).toBe(0);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);

    const after = run(['status', '--json', '--dir', project.dataDir]);
    expect(await after.exit).toBe(1);
  }, 120_000);

  it('starts again after the previous run was killed with SIGKILL', async () => {
    const first = run(['start', '--port', String(port), '--dir', project.dataDir, '--project', project.projectDir]);
    expect(await ready(first), first.output()).toBe('ready');
    first.child.kill('SIGKILL');
    await first.exit;

    const second = run(['start', '--port', String(port), '--dir', project.dataDir, '--project', project.projectDir]);
    expect(await ready(second), second.output()).toBe('ready');

    // Now the other way round: the children die hard and leave postmaster.pid behind.
    const { readStatus } = await import('@tend/supabase-local');
    const children = readStatus(project.dataDir)!.processes;
    second.child.kill('SIGKILL');
    for (const c of children) process.kill(c.pid, 'SIGKILL');
    await second.exit;
    const third = run(['start', '--port', String(port), '--dir', project.dataDir, '--project', project.projectDir]);
    expect(await ready(third), third.output()).toBe('ready');
    third.child.kill('SIGTERM');
    expect(await third.exit).toBe(0);
  }, 150_000);

  it('resets a stopped stack to migrations and seed', async () => {
    const reset = run(['reset', '--dir', project.dataDir, '--project', project.projectDir, '--port', String(port)]);
    expect(await reset.exit).toBe(0);
    expect(reset.output()).toMatch(/seed loaded/);
  });

  it('names the busy port and the option to change it in one line', async () => {
    const blocker = net.createServer().listen(port, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      const start = run(['start', '--port', String(port), '--dir', project.dataDir, '--project', project.projectDir]);
      expect(await start.exit).toBe(1);
      const lines = start.output().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`Port ${port}`);
      expect(lines[0]).toContain('--port');
    } finally {
      blocker.close();
    }
  });
});
