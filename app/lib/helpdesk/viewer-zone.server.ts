// The one place that decides a signed-in viewer's time zone (docs/decisions/067-viewer-time-zone.md).
// Loaders start it beside their own query and format every time they show with it (format-date.ts);
// emails, business hours and SLA clocks stay in the workspace's zone.
import { log } from '../http/log.server.ts';
import type { Supabase } from '../supabase/client.server.ts';
import { chooseTimeZone, TIME_ZONE_COOKIE, timeZoneName } from './time-zone.ts';

/** The zone to show a workspace's times in, for this viewer. */
export type ZoneOf = (workspaceZone: string) => string;

/**
 * The root's inline script on signed-in pages (root.tsx): the browser's zone into the cookie, for the next
 * render. Written on every page, so a laptop that travelled says its new zone. Server-only: the browser's
 * bundle doesn't carry it, hydration keeps the script the server rendered.
 */
export const TIME_ZONE_SCRIPT = `document.cookie="${TIME_ZONE_COOKIE}="+Intl.DateTimeFormat().resolvedOptions().timeZone+";path=/;max-age=31536000;samesite=lax"`;

const COOKIE = new RegExp(`(?:^|;\\s*)${TIME_ZONE_COOKIE}=([^;]*)`);

/** The browser's zone, as its script last wrote it in the cookie, if that is a valid one. */
export function browserTimeZone(request: Request): string | null {
  return timeZoneName(COOKIE.exec(request.headers.get('Cookie') ?? '')?.[1]);
}

/** The viewer's own setting (/account; null: automatic). A failed read is automatic, not a failed page. */
export async function timeZoneSetting(supabase: Supabase, userId: string): Promise<string | null> {
  const { data, error } = await supabase.from('user_settings').select('time_zone').eq('user_id', userId).maybeSingle();
  if (error) log.warn('time zone setting not read', { pg_code: error.code });
  return data?.time_zone ?? null;
}

/**
 * The viewer's time zone for a workspace's times: their setting, else their browser's, else the
 * workspace's (a page may list several workspaces, so the fallback is per workspace). Signed out (a page
 * anyone may open with a link): no setting, only the browser.
 */
export async function viewerZones(request: Request, supabase: Supabase | null, userId: string | null): Promise<ZoneOf> {
  const setting = supabase && userId ? await timeZoneSetting(supabase, userId) : null;
  const browser = browserTimeZone(request);
  return (workspaceZone) => chooseTimeZone(setting, browser, workspaceZone);
}
