// Waiting for a condition instead of sleeping: the one polling loop of the tests.

/**
 * `check`'s first truthy value, once it has one: checked at once, then after a pause that grows
 * from 10 ms to 100 ms (quick for an event already in an array, light on a database or a server
 * asked again and again). After `timeoutMs` it throws, saying what it waited for; `what` may be a
 * function, to say what was seen by then.
 */
export async function waitFor<T>(
  what: string | (() => string),
  check: () => T | undefined | null | false | 0 | '' | Promise<T | undefined | null | false | 0 | ''>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 100)) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}
