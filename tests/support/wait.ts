// Waiting for a condition instead of sleeping: polls with a growing pause (20 ms up to 200 ms).

/** `fn`'s first truthy value, once it has one; throws after `timeoutMs` saying what it waited for. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 20; ; wait = Math.min(wait * 2, 200)) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, wait));
  }
}
