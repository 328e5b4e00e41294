// `stop`: ends a stack started in another terminal. Its data dir's stack.json names the process
// that started it (the lock `start` takes); that process stops every child on SIGTERM, as on Ctrl-C.
import { isAlive, terminate } from '../process.ts';
import { readStatus } from '../stack.ts';

/** False when no stack runs on `dir`. Waits until the starting process has gone (SIGKILL after `graceMs`). */
export async function stopStack(dir: string, graceMs = 30_000): Promise<boolean> {
  const running = readStatus(dir);
  if (!running) return false;
  await terminate(running.pid, 'SIGTERM', graceMs);
  // Killed before it could stop them: the children it recorded go the same way.
  for (const child of running.processes) if (isAlive(child.pid)) await terminate(child.pid, 'SIGTERM');
  return true;
}
