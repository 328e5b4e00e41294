import { describe, expect, it } from 'vitest';
import { formatDate } from '../../app/lib/helpdesk/format-date.ts';

describe('formatDate', () => {
  const intl = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

  it('writes what en-GB medium date, short time in UTC writes, for every month and the edges of a day', () => {
    for (let month = 0; month < 12; month++) {
      for (const [day, h, m] of [
        [1, 0, 0],
        [9, 7, 5],
        [28, 23, 59],
      ] as const) {
        const d = new Date(Date.UTC(2026, month, day, h, m, 59, 999));
        expect(formatDate(d.toISOString())).toBe(`${intl.format(d)} UTC`);
      }
    }
    expect(formatDate('2026-11-23T00:37:36.123456+00:00')).toBe('23 Nov 2026, 00:37 UTC');
    expect(formatDate('2026-11-23T00:37:36+01:00')).toBe('22 Nov 2026, 23:37 UTC');
  });

  it('writes nothing for no date or a broken one', () => {
    expect(formatDate(null)).toBe('');
    expect(formatDate(undefined)).toBe('');
    expect(formatDate('yesterday')).toBe('');
  });
});
