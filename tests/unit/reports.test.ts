// The reports page's pure parts: durations as people say them, the chart's top line, and the range a
// URL asks for (presets, custom days checked at their fields).
import { describe, expect, it } from 'vitest';
import { niceCeiling } from '~/components/report-charts.tsx';
import { formatCount, formatDay, formatDuration, formatHour } from '~/lib/reports/format.ts';
import { reportArgs, reportRange } from '~/lib/reports/range.server.ts';

describe('formatDuration', () => {
  it('says seconds, minutes, hours and days as people do', () => {
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(60)).toBe('1 min');
    expect(formatDuration(12 * 60 + 20)).toBe('12 min');
    expect(formatDuration(3600)).toBe('1 h');
    expect(formatDuration(2 * 3600 + 5 * 60)).toBe('2 h 5 min');
    expect(formatDuration(86_400)).toBe('1 d');
    expect(formatDuration(30 * 3600)).toBe('1 d 6 h');
  });

  it('writes days and hours briefly', () => {
    expect(formatDay('2026-11-03')).toBe('3 Nov 2026');
    expect(formatDay('2026-09-30', { year: false })).toBe('30 Sept');
    expect(formatHour(9)).toBe('09:00–10:00');
    expect(formatHour(23)).toBe('23:00–00:00');
    expect([0, 999, 1000, 12_345, 1_234_567].map(formatCount)).toEqual(['0', '999', '1,000', '12,345', '1,234,567']);
  });
});

describe('niceCeiling', () => {
  it('rounds up to a top line whose half is whole', () => {
    expect([0, 1, 2, 3, 5, 7, 9, 11, 45, 101, 999].map(niceCeiling)).toEqual([2, 2, 2, 4, 6, 8, 10, 20, 60, 200, 1000]);
  });
});

describe('reportRange', () => {
  it('takes a preset (7, 30, 90; 30 otherwise), whose days workspace_report ends today in its zone', () => {
    expect(reportRange(new URLSearchParams('range=7'))).toEqual({ ok: true, preset: 7 });
    expect(reportRange(new URLSearchParams(''))).toEqual({ ok: true, preset: 30 });
    expect(reportRange(new URLSearchParams('range=365'))).toEqual({ ok: true, preset: 30 });
    expect(reportArgs('acme', { ok: true, preset: 90 })).toEqual({ p_slug: 'acme', p_days: 90 });
    expect(reportArgs('acme', { ok: true, preset: null, from: '2026-01-01', to: '2026-01-31' })).toEqual({
      p_slug: 'acme',
      p_from: '2026-01-01',
      p_to: '2026-01-31',
    });
  });

  it('takes custom days, and refuses bad ones at their field with what was typed', () => {
    expect(reportRange(new URLSearchParams('from=2026-01-01&to=2026-12-31'))).toEqual({
      ok: true,
      preset: null,
      from: '2026-01-01',
      to: '2026-12-31',
    });
    const errors = (query: string) => {
      const r = reportRange(new URLSearchParams(query));
      if (r.ok) throw new Error(`${query} was taken`);
      return { error: r.reply.error, initialValue: r.reply.initialValue };
    };
    expect(errors('from=2026-02-30&to=2026-03-01')).toEqual({
      error: { from: ['Enter a date such as 2026-01-31.'] },
      initialValue: { from: '2026-02-30', to: '2026-03-01' },
    });
    expect(errors('from=yesterday&to=')).toMatchObject({
      error: { from: ['Enter a date such as 2026-01-31.'], to: ['Enter a date such as 2026-01-31.'] },
    });
    const range = 'Choose an end date on or after the start date, at most 366 days later.';
    expect(errors('from=2026-03-02&to=2026-03-01').error).toEqual({ to: [range] });
    expect(errors('from=2025-01-01&to=2026-01-02').error).toEqual({ to: [range] });
    expect(reportRange(new URLSearchParams('from=2025-01-01&to=2026-01-01')).ok).toBe(true);
  });
});
