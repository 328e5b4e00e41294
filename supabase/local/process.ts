// Owned child processes: whoever spawns a child stops it, on every exit path.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';

export interface ManagedChild {
  name: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines it printed, for error messages. */
  tail(): string;
}

const live = new Set<ManagedChild>();
let hooked = false;

// A last line of defence: if the Node process exits for any reason, its children go with it.
function hookExit() {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const c of live) {
      try {
        c.child.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });
}

export function spawnManaged(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions & { logFile: string; onLine?: (line: string) => void },
): ManagedChild {
  hookExit();
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  // Own process group: a terminal's Ctrl-C reaches only the stack, which then stops its children in order.
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const onData = (chunk: Buffer) => {
    if (!log.writableEnded) log.write(chunk); // a killed postmaster's backends may print after it is gone
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      lines.push(line);
      if (lines.length > 40) lines.shift();
      options.onLine?.(line);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const managed: ManagedChild = {
    name,
    child,
    exited: new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        live.delete(managed);
        log.end();
        resolve({ code, signal });
      });
      child.on('error', (err) => {
        lines.push(String(err));
        live.delete(managed);
        resolve({ code: -1, signal: null });
      });
    }),
    tail: () => lines.join('\n'),
  };
  live.add(managed);
  return managed;
}

/** SIGTERM (or the given signal), then SIGKILL after `graceMs`. */
export async function stopChild(c: ManagedChild, signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<void> {
  if (c.child.exitCode !== null || c.child.signalCode !== null) return;
  c.child.kill(signal);
  const timer = setTimeout(() => c.child.kill('SIGKILL'), graceMs);
  await c.exited;
  clearTimeout(timer);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Signals a process we don't own as a child (an orphan from a killed run) and waits for it to go. */
export async function terminate(pid: number, signal: NodeJS.Signals, graceMs = 5000): Promise<void> {
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  for (let waited = 0; waited < graceMs && isAlive(pid); waited += 50) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}
