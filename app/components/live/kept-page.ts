// A live page's revalidation that the network fails: navigator.onLine can say online while nothing gets
// through (a Wi-Fi that lost its uplink, the app restarting). Remix would put its error page in place of
// the page, the composer and the text being typed with it. The live pages' clientLoader keeps the page as
// it was shown instead, and their live hook (useRevalidateSoon) asks again, sooner than later, until an
// answer comes (docs/product.md §4: a dropped network never costs typed text; live updates lose no event).

import { useEffect, useState } from 'react';

/**
 * The pages that keep themselves (their routes' clientLoader): the inbox, an agent's ticket and a customer's
 * request. A route with a clientLoader has its data sent in a request of its own, so the root's loader sits
 * out their forms and the navigations to them (root.tsx), or each would cost two requests instead of one.
 */
export const keepsItself = (pathname: string) =>
  /^\/w\/[^/]+\/?$|^\/(w\/[^/]+\/tickets|support\/[^/]+\/requests)\/\d+\/?$/.test(pathname);

/** The data each live page last showed (its own route's), by the page's path and query. */
const shown = new Map<string, unknown>();
/** Failed revalidations in a row: how long the live hook waits before the next try. */
let failures = 0;

/** What the live hook listens to: a revalidation failed and the page kept what it showed. */
export const UNREACHABLE_EVENT = 'tend:unreachable';
/** A revalidation got through again after failing. */
const REACHABLE_EVENT = 'tend:reachable';

const pageKey = (url: { pathname: string; search: string }) => url.pathname + url.search;

/** Called by the live hook with what the page shows now. */
export function keepShown(url: { pathname: string; search: string }, data: unknown) {
  shown.set(pageKey(url), data);
}

/** How long to wait (ms) before asking again after `failures` failures in a row: 1, 2, 4 … at most 30 s. */
export const retryDelayMs = () => Math.min(30_000, 1_000 * 2 ** Math.max(0, failures - 1));

/**
 * A live page's clientLoader: the server's answer; when the server could not be asked (fetch's
 * TypeError) and the page is already shown, what it shows, and UNREACHABLE_EVENT for the live hook.
 * Any other failure (a 404, a redirect to sign in) goes on as without it.
 */
export async function loadOrKeep<T>(request: Request, serverLoader: () => Promise<T>): Promise<T> {
  try {
    const data = await serverLoader();
    if (failures) window.dispatchEvent(new Event(REACHABLE_EVENT));
    failures = 0;
    return data;
  } catch (error) {
    const kept = shown.get(pageKey(new URL(request.url)));
    if (!(error instanceof TypeError) || kept === undefined) throw error;
    failures += 1;
    window.dispatchEvent(new Event(UNREACHABLE_EVENT));
    return kept as T;
  }
}

/** Whether the page's data can't be loaded now (the live status says so, connection-status.tsx). */
export function useUnreachable(): boolean {
  const [unreachable, setUnreachable] = useState(false);
  useEffect(() => {
    const down = () => setUnreachable(true);
    const up = () => setUnreachable(false);
    if (failures) down();
    window.addEventListener(UNREACHABLE_EVENT, down);
    window.addEventListener(REACHABLE_EVENT, up);
    return () => {
      window.removeEventListener(UNREACHABLE_EVENT, down);
      window.removeEventListener(REACHABLE_EVENT, up);
    };
  }, []);
  return unreachable;
}
