// One stack fixture for the integration files: `stackFixture(…)` / `dbFixture()` at the top of a
// file or describe block start a stack before its tests and tear it down after them (after the
// block's own afterAll hooks, which vitest runs in reverse order). The object returned stands
// for that stack while it runs; reading it outside a test or hook is a mistake, and says so.
import { afterAll, beforeAll } from 'vitest';
import { startDbStack, type DbStack } from './db.ts';
import { startTestStack, type TestStack } from './stack.ts';

/** A stack from tests/fixtures (stack-project by default) with the options of startTestStack. */
export function stackFixture(opts?: Parameters<typeof startTestStack>[0]): TestStack {
  return startedFor('stackFixture', () => startTestStack(opts));
}

/** A stack with Tend's own migrations and seed (startDbStack). */
export function dbFixture(): DbStack {
  return startedFor('dbFixture', startDbStack);
}

function startedFor<T extends { teardown(): Promise<void> }>(name: string, start: () => Promise<T>): T {
  let running: T | undefined;
  beforeAll(async () => {
    running = await start();
  });
  afterAll(async () => {
    await running?.teardown();
    running = undefined;
  });
  return new Proxy({} as T, {
    get(_, key) {
      if (!running) throw new Error(`${name}(): the stack runs only during the tests and hooks of its block`);
      return Reflect.get(running, key);
    },
  });
}
