// Whose time zone a page's times are in (app/lib/helpdesk/time-zone.ts, viewer-zone.server.ts): the
// viewer's setting, else their browser's (the cookie), else the workspace's; bad values are passed over.
import { describe, expect, it } from 'vitest';
import { chooseTimeZone, isTimeZone, TIME_ZONE_COOKIE } from '~/lib/helpdesk/time-zone.ts';
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
});

describe('isTimeZone', () => {
  it('is true for IANA names the runtime knows, aliases included', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'Asia/Calcutta'])
      expect(isTimeZone(zone), zone).toBe(true);
  });

  it('is false for anything else', () => {
    for (const value of [null, undefined, '', 'Mars/Olympus', '+01:00', 'Europe/Berlin;x=1', '<script>', 'a'.repeat(65)])
      expect(isTimeZone(value), String(value)).toBe(false);
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
