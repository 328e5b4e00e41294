import { describe, expect, it } from 'vitest';
import { addVouch, type Vouches, vouchedViewers } from '../../app/lib/realtime/vouched-presence.ts';

const [me, ada, sam] = ['me', 'ada', 'sam'];

describe('who is viewing, as the database vouches', () => {
  it('shows a key only for an entry the database said was that user’s', () => {
    const vouches: Vouches = new Map();
    const entries = {
      [ada]: [{ presence_ref: 'r1' }],
      [sam]: [{ presence_ref: 'r2' }],
      [me]: [{ presence_ref: 'r3' }],
    };
    expect(vouchedViewers(entries, vouches, me)).toEqual([]);
    addVouch(vouches, 'r1', ada);
    addVouch(vouches, 'r3', me);
    expect(vouchedViewers(entries, vouches, me)).toEqual([ada]);
  });

  it('ignores an entry under another’s key, and a claim on another’s entry', () => {
    const vouches: Vouches = new Map();
    // Sam tracks under Ada's key and announces that entry: vouched as Sam's, not Ada's.
    const entries = { [ada]: [{ presence_ref: 'forged' }] };
    addVouch(vouches, 'forged', sam);
    expect(vouchedViewers(entries, vouches, me)).toEqual([]);
    // Ada's own entry, which Sam claims too: still Ada's.
    entries[ada].push({ presence_ref: 'real' });
    addVouch(vouches, 'real', ada);
    addVouch(vouches, 'real', sam);
    expect(vouchedViewers(entries, vouches, me)).toEqual([ada]);
  });
});
