import { describe, expect, it } from 'vitest';
import { type Vouches, vouchedViewers } from '../../app/lib/realtime/vouched-presence.ts';

const [me, ada, sam] = ['me', 'ada', 'sam'];

describe('who is viewing, as the database vouches', () => {
  it('shows each user who announced an entry that is present, never by the key', () => {
    const entries = { k1: [{ presence_ref: 'r1' }], [sam]: [{ presence_ref: 'r2' }], k3: [{ presence_ref: 'r3' }] };
    // Nobody announced anything: a key that is a user id names no one.
    expect(vouchedViewers(entries, [], me)).toEqual([]);
    const vouches: Vouches = [
      ['r1', ada],
      ['r3', me],
      ['gone', sam],
    ];
    expect(vouchedViewers(entries, vouches, me)).toEqual([ada]);
  });

  it('shows a forger as the forger: an entry under another’s id, or another’s entry claimed', () => {
    // Sam tracks under Ada's id and announces it; then claims Ada's real entry too.
    const entries = { [ada]: [{ presence_ref: 'forged' }], k: [{ presence_ref: 'real' }] };
    const vouches: Vouches = [
      ['forged', sam],
      ['real', ada],
      ['real', sam],
    ];
    expect(vouchedViewers(entries, vouches, me)).toEqual([sam, ada]);
    // Ada leaves: only Sam, whatever key his entry uses.
    expect(vouchedViewers({ [ada]: [{ presence_ref: 'forged' }] }, vouches, me)).toEqual([sam]);
  });
});
