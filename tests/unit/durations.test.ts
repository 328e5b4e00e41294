// SLA targets as written on the settings page (app/lib/promises/durations.ts).
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../app/lib/promises/durations.ts';

describe('parseDuration', () => {
  it('reads minutes and hours, alone or together', () => {
    expect(parseDuration('30m')).toBe(30);
    expect(parseDuration('45')).toBe(45);
    expect(parseDuration('4h')).toBe(240);
    expect(parseDuration(' 1h 30m ')).toBe(90);
    expect(parseDuration('2 hours 5 minutes')).toBe(125);
    expect(parseDuration('')).toBeUndefined();
  });
  it('refuses anything else, nothing and more than a year', () => {
    for (const bad of ['soon', '0', '0m', '1d', '-5m', '8761h', '1h30x']) expect(parseDuration(bad), bad).toBeNull();
  });
});

describe('formatDuration', () => {
  it('writes what parseDuration reads', () => {
    expect(formatDuration(90)).toBe('1h 30m');
    expect(formatDuration(480)).toBe('8h');
    expect(formatDuration(5)).toBe('5m');
    expect(formatDuration(null)).toBe('');
    for (const m of [1, 59, 60, 61, 1439, 525_600]) expect(parseDuration(formatDuration(m))).toBe(m);
  });
});
