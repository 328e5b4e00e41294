// The settings page's reading of a day's opening hours (app/lib/promises/business-hours.ts).
import { describe, expect, it } from 'vitest';
import { formatDay, parseDay } from '../../app/lib/promises/business-hours.ts';

describe('parseDay', () => {
  it('reads several periods, in any order, with an en dash or a hyphen', () => {
    expect(parseDay(1, '13:30-18:00, 8:00–12:00')).toEqual([
      { weekday: 1, opens: '08:00', closes: '12:00' },
      { weekday: 1, opens: '13:30', closes: '18:00' },
    ]);
    expect(parseDay(2, '  ')).toEqual([]);
    expect(parseDay(3, '20:00 – 24:00; 00:00-02:00')).toEqual([
      { weekday: 3, opens: '00:00', closes: '02:00' },
      { weekday: 3, opens: '20:00', closes: '24:00' },
    ]);
    expect(parseDay(4, '08:00-12:00, 12:00-13:00')).toHaveLength(2);
  });

  it('refuses what is not a period, ends before it starts, runs past midnight or overlaps', () => {
    for (const bad of [
      '9 to 5',
      '18:00-08:00',
      '10:00-10:00',
      '22:00-24:30',
      '24:00-24:00',
      '08:00-12:00, 11:00-14:00',
      '25:00-26:00',
      '08:60-09:00',
    ]) {
      expect(parseDay(1, bad), bad).toBeNull();
    }
  });
});

describe('formatDay', () => {
  it('writes the periods back as the form shows them', () => {
    expect(
      formatDay([
        { opens: '08:00:00', closes: '12:00:00' },
        { opens: '13:30:00', closes: '24:00:00' },
      ]),
    ).toBe('08:00–12:00, 13:30–24:00');
    expect(formatDay([])).toBe('');
  });
});
