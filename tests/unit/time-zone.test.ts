// Whose time zone a page's times are in (app/lib/helpdesk/time-zone.ts, viewer-zone.server.ts): the
// viewer's setting, else their browser's (the cookie), else the workspace's; bad values are passed over.
import { describe, expect, it } from 'vitest';
import { chooseTimeZone, personalTimeZone, TIME_ZONE_COOKIE, timeZoneName } from '~/lib/helpdesk/time-zone.ts';
import { browserTimeZone } from '~/lib/helpdesk/viewer-zone.server.ts';

const withCookie = (cookie: string) => new Request('http://localhost/', { headers: { Cookie: cookie } });

describe('chooseTimeZone', () => {
  it('takes the setting over the browser, the browser over the workspace', () => {
    expect(chooseTimeZone('Asia/Tokyo', 'America/New_York', 'Europe/Berlin')).toBe('Asia/Tokyo');
    expect(chooseTimeZone(null, 'America/New_York', 'Europe/Berlin')).toBe('America/New_York');
    expect(chooseTimeZone(null, null, 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(chooseTimeZone(undefined, undefined, 'UTC')).toBe('UTC');
  });

  it('passes over what is no time zone, down to UTC', () => {
    expect(chooseTimeZone('Mars/Olympus', 'America/New_York', 'Europe/Berlin')).toBe('America/New_York');
    expect(chooseTimeZone('', '+01:00', 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(chooseTimeZone(null, 'Europe/Nowhere', 'Mars/Olympus')).toBe('UTC');
  });

  it("is the viewer's own zone, or none, before the workspace's (personalTimeZone)", () => {
    expect(personalTimeZone('Asia/Tokyo', 'America/New_York')).toBe('Asia/Tokyo');
    expect(personalTimeZone(null, 'America/New_York')).toBe('America/New_York');
    expect(personalTimeZone('Mars/Olympus', 'not a zone')).toBeNull();
  });
});

describe('timeZoneName', () => {
  it('is an IANA name the runtime knows, as it spells it', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'Australia/Adelaide', 'Etc/GMT+5'])
      expect(timeZoneName(zone), zone).toBe(zone);
    expect(timeZoneName('europe/berlin')).toBe('Europe/Berlin');
    // An old alias is a zone too, under whichever name the runtime gives it.
    expect(timeZoneName('Asia/Calcutta')).toMatch(/^Asia\/(Calcutta|Kolkata)$/);
  });

  it('is null for anything else', () => {
    for (const value of [
      null,
      undefined,
      '',
      'Mars/Olympus',
      '+01:00',
      'Europe/Berlin;x=1',
      '<script>',
      'a'.repeat(65),
    ])
      expect(timeZoneName(value), String(value)).toBeNull();
  });
});

describe('browserTimeZone', () => {
  it("reads the browser's zone from its cookie, among others", () => {
    expect(browserTimeZone(withCookie(`a=1; ${TIME_ZONE_COOKIE}=Europe/Berlin; b=2`))).toBe('Europe/Berlin');
    expect(browserTimeZone(withCookie(`${TIME_ZONE_COOKIE}=America/New_York`))).toBe('America/New_York');
  });

  it('is null without the cookie or with a value that is no zone', () => {
    expect(browserTimeZone(new Request('http://localhost/'))).toBeNull();
    expect(browserTimeZone(withCookie(`x${TIME_ZONE_COOKIE}=Europe/Berlin`))).toBeNull();
    expect(browserTimeZone(withCookie(`${TIME_ZONE_COOKIE}=undefined`))).toBeNull();
    expect(browserTimeZone(withCookie(`${TIME_ZONE_COOKIE}=Europe%2FBerlin`))).toBeNull();
    expect(browserTimeZone(withCookie(`${TIME_ZONE_COOKIE}=`))).toBeNull();
  });
});
