// Whose time zone a page's times are in (docs/decisions/067-viewer-time-zone.md): the viewer's own setting
// (/account), else their browser's (a cookie the root's script sets), else the workspace's. Pure, so the
// rule is tested on its own; app/lib/helpdesk/viewer-zone.server.ts reads the setting and the cookie.

/** The cookie holding the browser's IANA zone; not HttpOnly, the browser's script writes it. */
export const TIME_ZONE_COOKIE = 'tend_tz';

// An IANA name ("Europe/Berlin", "Etc/GMT+5", "UTC"): letters first, no offsets ("+01:00") or other
// syntax a browser might also accept.
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
const known = new Set<string>(['UTC']);

/**
 * An IANA name (a cookie, a stored value) as this runtime spells it, or null when it can't format in it.
 * Only the runtime's own spellings are remembered, a few hundred at most, whatever visitors send
 * ("europe/berlin" is Europe/Berlin, asked again each time).
 */
export function timeZoneName(value: string | null | undefined): string | null {
  if (!value || value.length > 64 || !IANA_NAME.test(value)) return null;
  if (known.has(value)) return value;
  let name: string;
  try {
    name = new Intl.DateTimeFormat('en-GB', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  known.add(name);
  return name;
}

/** The viewer's own zone, if they have one: their setting, else their browser's (invalid ones passed over). */
export function personalTimeZone(setting: string | null | undefined, browser: string | null | undefined) {
  return timeZoneName(setting) ?? timeZoneName(browser);
}

/**
 * The zone a viewer's times are shown in: their own (personalTimeZone), else the workspace's (UTC if even
 * that can't be used). Invalid values are passed over, never an error.
 */
export function chooseTimeZone(
  setting: string | null | undefined,
  browser: string | null | undefined,
  workspace: string,
) {
  return personalTimeZone(setting, browser) ?? timeZoneName(workspace) ?? 'UTC';
}
