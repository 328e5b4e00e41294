import { describe, expect, it } from 'vitest';
import { waitFor } from '../../scripts/lib/wait.ts';

describe('waitFor', () => {
  it("returns the check's first truthy value, sync or async, checking again until there is one", async () => {
    let calls = 0;
    expect(await waitFor('the third call', () => ++calls >= 3 && `call ${calls}`)).toBe('call 3');
    expect(await waitFor('a value', async () => [0, 1])).toEqual([0, 1]);
  });

  it('fails after its timeout, saying what it waited for and, from a function, what was seen by then', async () => {
    const seen: string[] = [];
    await expect(waitFor('something that never comes', () => false, 50)).rejects.toThrow(
      'timed out after 50 ms waiting for something that never comes',
    );
    const waiting = waitFor(
      () => `a line, seen: ${seen.join(', ')}`,
      () => seen.includes('ready'),
      50,
    );
    seen.push('starting');
    await expect(waiting).rejects.toThrow('timed out after 50 ms waiting for a line, seen: starting');
  });

  it('passes on an error the check throws', async () => {
    await expect(
      waitFor('an exit', () => {
        throw new Error('exited first');
      }),
    ).rejects.toThrow('exited first');
  });
});
