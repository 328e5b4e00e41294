// `npm run dev` as the README has a new developer run it: the stack, `remix dev` and the island
// watcher come up together, everything listens on loopback only, a sign-in code, a crash and
// restart and a failing cron job show up in the terminal, the emails' links name the app's port, and Ctrl-C (SIGINT to the whole
// foreground process group, as a terminal sends it) stops every process.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { freeBasePort, freePort, PROJECT_DIR, readStatus } from '@tend/supabase-local';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { tempProject, type TempProject } from '../../scripts/lib/project.ts';

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3_000 });
    socket.once('connect', () => resolve(!!socket.destroy()));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => resolve(!socket.destroy())); // dropped, not refused: unreachable too
  });
}

/** A process that exists and is not a zombie (a container's init may not reap orphans). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Every process below `root`, from /proc (ppid is the 4th field of /proc/<pid>/stat). */
function descendants(root: number): { pid: number; cmd: string }[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  const below = (pid: number): number[] =>
    [...parent].filter(([, ppid]) => ppid === pid).flatMap(([child]) => [child, ...below(child)]);
  return below(root).map((pid) => {
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      /* gone */
    }
    return { pid, cmd };
  });
}

/** The TCP addresses these processes listen on (/proc/net/tcp{,6}, state 0A, matched by socket inode). */
function listening(pids: number[]): string[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]);
      }
    } catch {
      /* gone, or not ours to read */
    }
  }
  const out: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = row.trim().split(/\s+/);
      if (f[3] !== '0A' || !inodes.has(f[9])) continue;
      const [hex, port] = f[1].split(':');
      // Network-order bytes from little-endian 32-bit words.
      const bytes = (hex.match(/.{8}/g) ?? [])
        .flatMap((w) => w.match(/../g)!.reverse())
        .map((b) => Number.parseInt(b, 16));
      const addr =
        bytes.length === 4
          ? bytes.join('.')
          : new URL(
              `http://[${Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] << 8) | bytes[2 * i + 1]).toString(16)).join(':')}]`,
            ).hostname;
      out.push(`${addr}:${Number.parseInt(port, 16)}`);
    }
  }
  return out;
}

const isLoopback = (address: string) => /^(127\.|\[::1\]:|\[::ffff:7f)/.test(address);

describe('npm run dev', () => {
  let data: TempProject;
  beforeAll(() => {
    data = tempProject();
  });
  afterAll(() => data.remove());

  it('serves on loopback only, prints codes, crashes, restarts, cron failures and function logs, and stops every process on Ctrl-C', async () => {
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
        detached: true, // its own process group, as a terminal's foreground job
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

      // Every process of the tree, remix dev's live-reload server included, listens on loopback only.
      const tree = descendants(dev.pid!);
      expect(tree.some((p) => /\bremix dev\b/.test(p.cmd))).toBe(true);
      expect(tree.some((p) => p.cmd.includes('server.ts'))).toBe(true); // the app server (docs/decisions/021-allowed-hosts.md)
      const addresses = listening([dev.pid!, ...tree.map((p) => p.pid)]);
      expect(addresses).toContain(`127.0.0.1:${appPort}`); // the app server, a grandchild
      expect(addresses).toContain(`127.0.0.1:${stackPort}`);
      expect(addresses.filter((a) => !isLoopback(a))).toEqual([]);

      // A crash of PostgREST is said, and so is its restart.
      const rest = readStatus(data.dataDir)!.processes.find((p) => p.name === 'postgrest')!.pid;
      process.kill(rest, 'SIGKILL');
      await expect.poll(() => output, { timeout: 15_000 }).toMatch(/\[supervisor\] postgrest restarted \(pid \d+\)/);
      expect(output).toContain(`[supervisor] postgrest (pid ${rest}) exited unexpectedly (SIGKILL); restarting in 1 s`);

      // pg_cron's failures are printed.
      const db = new pg.Client({ connectionString: readStatus(data.dataDir)!.dbUrl });
      await db.connect();
      try {
        await db.query('create extension if not exists pg_cron');
        await db.query(`select cron.schedule('dev-test-fails', '1 seconds', 'select 1/0')`);
        await expect.poll(() => output, { timeout: 15_000 }).toMatch(/\[cron\] job \d+ failed: division by zero/);
        await db.query(`select cron.unschedule('dev-test-fails')`);

        // What a function prints, prefixed by its name: close-solved reports what it closed.
        await db.query(
          `update tickets set status = 'solved', solved_at = now() - interval '8 days' where id = (select id from tickets order by created_at limit 1)`,
        );
        const { apiUrl, serviceRoleKey } = readStatus(data.dataDir)!;
        const closed = await fetch(`${apiUrl}/functions/v1/close-solved`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${serviceRoleKey}` },
        });
        expect(await closed.json()).toEqual({ closed: 1 });
        await expect
          .poll(() => output, { timeout: 15_000 })
          .toMatch(/\[functions\] close-solved: closed 1 solved ticket\(s\)/);

        // The emails' links name the app where it runs (PORT), as its sign-in links do: an agent's
        // reply to the requester and an invitation, each mailed by notify.
        const callNotify = async (body: object) =>
          (
            await fetch(`${apiUrl}/functions/v1/notify`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${serviceRoleKey}`, 'Content-Type': 'application/json' },
              body: JSON.stringify(body),
            })
          ).json();
        const { rows: replies } = await db.query(
          `select m.id, t.number, w.slug, u.email from messages m join tickets t on t.id = m.ticket_id
             join workspaces w on w.id = t.workspace_id join auth.users u on u.id = t.requester_id
            where m.kind = 'reply' and t.status <> 'closed'
              and exists (select 1 from memberships s where s.workspace_id = t.workspace_id and s.user_id = m.author_id)
            order by m.created_at limit 1`,
        );
        const [reply] = replies;
        expect(await callNotify({ type: 'message', message_id: reply.id })).toMatchObject({ sent: [reply.email] });
        const token = randomBytes(32).toString('base64url');
        const { rows: invited } = await db.query(
          `insert into invitations (workspace_id, email, token_hash)
           select id, 'dev-invitee@example.test', encode(sha256(convert_to($1, 'UTF8')), 'hex') from workspaces limit 1 returning id`,
          [token],
        );
        expect(await callNotify({ type: 'invitation', invitation_id: invited[0].id, token })).toMatchObject({
          sent: ['dev-invitee@example.test'],
        });
        const origin = `http://localhost:${appPort}`;
        const { mailUrl } = readStatus(data.dataDir)!;
        const textTo = async (to: string) => {
          const [newest] = await messagesTo(mailUrl, to, { notifications: true });
          return (await (await fetch(`${mailUrl}/api/v1/message/${newest.ID}`)).json()).Text as string;
        };
        expect(await textTo(reply.email)).toContain(`${origin}/support/${reply.slug}/requests/${reply.number}`);
        expect(await textTo('dev-invitee@example.test')).toContain(`${origin}/invite/${token}`);
      } finally {
        await db.end();
      }
    } finally {
      const everyone = [...(readStatus(data.dataDir)?.processes ?? []), ...descendants(dev.pid!)];
      process.kill(-dev.pid!, 'SIGINT'); // Ctrl-C: the whole foreground group
      expect(await exited, output).toBe(0);
      await expect
        .poll(() => everyone.filter((p) => running(p.pid)).map((p) => `${p.pid} ${'cmd' in p ? p.cmd : p.name}`), {
          timeout: 5_000,
        })
        .toEqual([]);
      expect(await canConnect('127.0.0.1', appPort)).toBe(false);
    }
  }, 150_000);
});
