// The one place that decides a signed-in viewer's time zone (docs/decisions/067-viewer-time-zone.md).
// Loaders start it beside their own query and format every time they show with it (format-date.ts);
// emails, business hours and SLA clocks stay in the workspace's zone.
import { log } from '../http/log.server.ts';
import type { Supabase } from '../supabase/client.server.ts';
import { jsonPage } from './json-page.ts';
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

/** What every signed-in page asks about its viewer (public.viewer_state, 86_user_settings.sql). */
export interface ViewerState {
  /** The bell's number: unread notifications (up to 100), or null for someone in no workspace. */
  unread: number | null;
  /** Their own time zone setting (/account; null: automatic). */
  time_zone: string | null;
}

const states = new WeakMap<object, Promise<ViewerState>>();

/**
 * The viewer's bell and time zone setting in one call per request: Remix hands every loader of a request
 * the same load context, so the root's loader (the bell) and the page's (its times) share the one answer,
 * whichever asks first (docs/decisions/075-page-cpu.md). Both are conveniences: a failed read is no
 * number on the bell and automatic times, not a failed page.
 */
export function viewerState(context: object, supabase: Supabase): Promise<ViewerState> {
  let state = states.get(context);
  if (!state) {
    state = (async () => {
      const { data, error } = await supabase.rpc('viewer_state');
      if (error) log.warn('viewer state not read', { pg_code: error.code });
      return data ? jsonPage<ViewerState>(data) : { unread: null, time_zone: null };
    })();
    states.set(context, state);
  }
  return state;
}

/**
 * The viewer's time zone for a workspace's times: their setting, else their browser's, else the
 * workspace's (a page may list several workspaces, so the fallback is per workspace). Signed out (a page
 * anyone may open with a link; `supabase` null): no setting, only the browser. `context` is the loader's
 * (viewerState).
 */
export async function viewerZones(
  { request, context }: { request: Request; context: object },
  supabase: Supabase | null,
): Promise<ZoneOf> {
  const setting = supabase ? (await viewerState(context, supabase)).time_zone : null;
  const browser = browserTimeZone(request);
  return (workspaceZone) => chooseTimeZone(setting, browser, workspaceZone);
}
