// The due-time badge's words and colour (app/lib/promises/due.ts).
import { describe, expect, it } from 'vitest';
import { dueBadge } from '../../app/lib/promises/due.ts';

const NOW = new Date('2026-03-06T12:00:00Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();

describe('dueBadge', () => {
  it('says how long is left, amber from the warning time, red once due', () => {
    expect(dueBadge(at(25), at(40), NOW, 'UTC')).toMatchObject({ text: 'due in 25 min', tone: 'ok' });
    expect(dueBadge(at(25), at(-5), NOW, 'UTC')).toMatchObject({ text: 'due in 25 min', tone: 'warning' });
    expect(dueBadge(at(-125), at(-200), NOW, 'UTC')).toMatchObject({ text: 'overdue 2 h', tone: 'breached' });
    expect(dueBadge(at(0.5), at(-5), NOW, 'UTC')).toMatchObject({ text: 'due now', tone: 'warning' });
    expect(dueBadge(at(0), at(-5), NOW, 'UTC')).toMatchObject({ text: 'overdue', tone: 'breached' });
    expect(dueBadge(at(3 * 24 * 60 + 5), null, NOW, 'UTC')).toMatchObject({ text: 'due in 3 d', tone: 'ok' });
    expect(dueBadge(null, null, NOW, 'UTC')).toBeNull();
  });

  it("says the due time in the viewer's time zone, with the zone named", () => {
    expect(dueBadge('2026-03-09T09:00:00Z', null, NOW, 'Europe/Berlin')?.when).toBe('Mon 9 Mar, 10:00 UTC+1');
    expect(dueBadge('2026-03-09T09:00:00Z', null, NOW, 'America/New_York')?.when).toBe('Mon 9 Mar, 05:00 UTC-4');
    expect(dueBadge(at(60), null, NOW, 'Asia/Tokyo')?.when).toBe('Fri 6 Mar, 22:00 UTC+9');
    expect(dueBadge(at(60), null, NOW, 'UTC')?.when).toBe('Fri 6 Mar, 13:00 UTC');
  });
});
