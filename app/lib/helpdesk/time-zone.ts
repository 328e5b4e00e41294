// Whose time zone a page's times are in (docs/decisions/067-viewer-time-zone.md): the viewer's own setting
// (/account), else their browser's (a cookie the root's script sets), else the workspace's. Pure, so the
// rule is tested on its own; app/lib/helpdesk/viewer-zone.server.ts reads the setting and the cookie.

/** The cookie holding the browser's IANA zone; not HttpOnly, the browser's script writes it. */
export const TIME_ZONE_COOKIE = 'tend_tz';

// An IANA name ("Europe/Berlin", "Etc/GMT+5", "UTC"): letters first, no offsets ("+01:00") or other
// syntax a browser might also accept.
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
const known = new Set<string>(['UTC']);

/** A time zone this runtime can format in, by an IANA name (a cookie or a stored value from elsewhere). */
export function isTimeZone(value: string | null | undefined): value is string {
  if (!value || value.length > 64 || !IANA_NAME.test(value)) return false;
  if (known.has(value)) return true;
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: value });
  } catch {
    return false;
  }
  // Only valid names are kept: a few hundred at most.
  known.add(value);
  return true;
}

/**
 * The zone a viewer's times are shown in: their setting, else their browser's, else the workspace's
 * (UTC if even that can't be used). Invalid values are passed over, never an error.
 */
export function chooseTimeZone(setting: string | null | undefined, browser: string | null | undefined, workspace: string) {
  return [setting, browser, workspace].find(isTimeZone) ?? 'UTC';
}
