import { describe, expect, it } from 'vitest';
import { formatDateIn, formatDayTimeIn } from '~/lib/helpdesk/format-date.ts';

describe('formatDateIn', () => {
  it('says the time in the zone, named by its offset then', () => {
    expect(formatDateIn('2026-11-23T00:37:00Z', 'Europe/Berlin')).toBe('23 Nov 2026, 01:37 UTC+1');
    // Summer time, and a day earlier west of UTC.
    expect(formatDateIn('2026-07-01T00:37:00Z', 'Europe/Berlin')).toBe('1 Jul 2026, 02:37 UTC+2');
    expect(formatDateIn('2026-11-23T00:37:00Z', 'America/New_York')).toBe('22 Nov 2026, 19:37 UTC-5');
    expect(formatDateIn('2026-11-23T00:37:59Z', 'Asia/Kolkata')).toBe('23 Nov 2026, 06:07 UTC+5:30');
  });

  it('says UTC as UTC, and nothing for no date', () => {
    expect(formatDateIn('2026-11-23T00:37:00Z', 'UTC')).toBe('23 Nov 2026, 00:37 UTC');
    expect(formatDateIn(null, 'Europe/Berlin')).toBe('');
    expect(formatDateIn('not a date', 'Europe/Berlin')).toBe('');
  });

  it('turns the clock at midnight in the zone, not in UTC', () => {
    expect(formatDateIn('2026-12-31T23:30:00Z', 'Europe/Berlin')).toBe('1 Jan 2027, 00:30 UTC+1');
  });

  it('names the weekday of a time in the coming days, in the zone', () => {
    expect(formatDayTimeIn('2026-11-23T00:37:00Z', 'America/New_York')).toBe('Sun 22 Nov, 19:37 UTC-5');
    expect(formatDayTimeIn('2026-11-23T00:37:00Z', 'UTC')).toBe('Mon 23 Nov, 00:37 UTC');
  });
});
