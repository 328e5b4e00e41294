// kill -9 of a function's Deno worker while calls are in flight (issue 25 item 1): the calls it held
// get the platform's WORKER_ERROR (500, as hosted answers a worker that died), the stack carries on,
// and the next call starts a new worker and is answered.
import { describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const stack = stackFixture({ fixture: 'functions-project' });

const call = async (ms: number) => {
  const res = await fetch(`${stack.apiUrl}/functions/v1/wait?ms=${ms}`, {
    headers: { authorization: `Bearer ${stack.anonKey}` },
  });
  return { status: res.status, code: res.headers.get('sb-error-code'), body: await res.json() };
};
const workerPid = () => stack.processes().find((p) => p.name === 'deno wait')?.pid;

describe('kill -9 of a Deno worker', () => {
  it('fails the calls in flight with WORKER_ERROR; the next call gets a new worker', async () => {
    expect((await call(0)).status).toBe(200);
    const pid = workerPid()!;
    // Eight callers, each keeping a call in flight (400 ms each) until the kill is over.
    let killed = false;
    const outcomes: Awaited<ReturnType<typeof call>>[][] = Array.from({ length: 8 }, () => []);
    const callers = outcomes.map(async (mine) => {
      while (!killed || mine.length < 3) mine.push(await call(400));
    });
    await waitFor('calls in flight', async () => outcomes.every((o) => o.length >= 1));
    process.kill(pid, 'SIGKILL');
    killed = true;
    await Promise.all(callers);

    const all = outcomes.flat();
    const failed = all.filter((o) => o.status !== 200);
    expect(failed.length).toBeGreaterThan(0); // the calls the worker held when it died
    for (const o of failed)
      expect(o).toEqual({
        status: 500,
        code: 'WORKER_ERROR',
        body: { code: 'WORKER_ERROR', message: 'Function exited due to an error (please check logs)' },
      });
    // Each caller's last call was answered, by a new worker.
    for (const mine of outcomes) expect(mine.at(-1)).toMatchObject({ status: 200, body: { waited: 400 } });
    expect(workerPid()).not.toBe(pid);
    expect((await call(0)).status).toBe(200);
  });
});
