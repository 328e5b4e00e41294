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

// What a page shows when the viewer's state could not be read: no number on the bell, automatic times.
const NO_STATE: ViewerState = { unread: null, time_zone: null };

// Per request (its load context): the answer a page's own call carries (carryViewerState), and the
// viewer_state call, made only when no page's call carries it.
const slots = new WeakMap<object, { carried?: Promise<ViewerState | null>; asked?: Promise<ViewerState> }>();
const slotOf = (context: object) => {
  let slot = slots.get(context);
  if (!slot) slots.set(context, (slot = {}));
  return slot;
};

/**
 * The viewer's bell and time zone setting, once per request: Remix hands every loader of a request the
 * same load context, so the root's loader (the bell) and the page's (its times) share one answer,
 * whichever asks first (docs/decisions/075-page-cpu.md). When the page's own call carries it
 * (carryViewerState), that answer, with no call of its own (docs/decisions/082-page-calls.md). Both are
 * conveniences: a failed read is no number on the bell and automatic times, not a failed page.
 */
export async function viewerState(context: object, supabase: Supabase): Promise<ViewerState> {
  const slot = slotOf(context);
  const carried = slot.carried && (await slot.carried);
  if (carried) return carried;
  slot.asked ??= (async () => {
    const { data, error } = await supabase.rpc('viewer_state');
    if (error) log.warn('viewer state not read', { pg_code: error.code });
    return data ? jsonPage<ViewerState>(data) : NO_STATE;
  })();
  return slot.asked;
}

/**
 * A loader whose page call answers public.viewer_state too (its `viewer` key): `load` hands that
 * answer to `carry`, and the root's loader, which Remix starts beside it, waits for it instead of asking
 * (docs/decisions/082-page-calls.md). Call it before any await in the loader, so the root sees the claim.
 * Whatever happens (a throw, a redirect, a failed call) the claim is settled: without an answer, the
 * root asks for itself. When viewer_state was asked already, `carry` does nothing.
 */
export async function carryingViewerState<T>(
  context: object,
  load: (carry: (state: ViewerState) => void) => Promise<T>,
): Promise<T> {
  const slot = slotOf(context);
  if (slot.asked || slot.carried) return load(() => undefined);
  let settle!: (state: ViewerState | null) => void;
  slot.carried = new Promise((resolve) => {
    settle = resolve;
  });
  try {
    return await load(settle);
  } finally {
    settle(null); // no-op once it has an answer
  }
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
  return zonesFor(request, supabase ? await viewerState(context, supabase) : null);
}

/** viewerZones with the viewer's state in hand (a page whose own call carries it); null: signed out or unread. */
export function zonesFor(request: Request, state: ViewerState | null | undefined): ZoneOf {
  const setting = state?.time_zone ?? null;
  const browser = browserTimeZone(request);
  return (workspaceZone) => chooseTimeZone(setting, browser, workspaceZone);
}
