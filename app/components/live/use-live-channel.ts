// One Realtime channel for the life of a page: joined after the user's token is set (so the join
// never runs as anon), its connection state for the indicator, and a catch-up (the page's loaders
// run again) whenever it becomes live after being cut off, so nothing sent meanwhile is lost.
import type { RealtimeChannel, RealtimeClient } from '@supabase/realtime-js';
import { useLocation, useMatches, useRevalidator, useRouteLoaderData } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';
import { realtimeClient } from '~/lib/realtime/client.ts';
import { type ConnectionState, initialProgress, nextProgress } from '~/lib/realtime/connection.ts';
import { keepShown, retryDelayMs, UNREACHABLE_EVENT } from './kept-page.ts';
import type { loader as rootLoader } from '~/root.tsx';

// The header's bell follows its notifications on the same client (notification-bell-live.ts, loaded on
// demand). It imports the live pages' pieces from here, so they stay one chunk for both (a chunk is what
// the same set of pages loads): the live pages load no extra file, and the bell's code none of theirs.
export { ConnectionStatus } from './connection-status.tsx';
export { realtimeClient };

export interface LiveChannelOptions {
  topic: string;
  /** A private channel: policies on realtime.messages decide who may join (presence, broadcast). */
  private?: boolean;
  /** The presence key (the user's id), for channels that track who is here. */
  presenceKey?: string;
  /** Listens to postgres_changes: live only once the server says changes flow. */
  listensToChanges: boolean;
  /** Adds the channel's listeners before it subscribes. */
  setup: (channel: RealtimeChannel) => void;
  /** After every join (presence is tracked again on each). */
  onJoined?: (channel: RealtimeChannel) => void;
  /** The page may have missed changes: revalidate. */
  onCatchUp: () => void;
}

// A page whose data is older than this when its channel first goes live (a slow start) catches up too.
const STALE_AT_FIRST_LIVE_MS = 2_000;

// Topics being left: a page that comes back to one (React's strict mode, a quick back-and-forth)
// waits, because realtime-js hands out the leaving channel for the same topic until it is gone.
const leaving = new Map<string, Promise<unknown>>();
let documentHydrated = false;

/** The connection state (null until hydrated: without JavaScript nothing is live, nothing is shown). */
export function useLiveChannel(options: LiveChannelOptions): ConnectionState | null {
  const env = useRouteLoaderData<typeof rootLoader>('root')?.ENV;
  // Strings, not the object: every revalidation brings a new ENV object, and must not rejoin.
  const url = env?.SUPABASE_URL;
  const anonKey = env?.SUPABASE_ANON_KEY;
  const [state, setState] = useState<ConnectionState | null>(null);
  const latest = useRef(options);
  latest.current = options;
  const { topic, private: isPrivate = false, presenceKey, listensToChanges } = options;

  useEffect(() => {
    if (!url || !anonKey) return;
    // The data this page shows is from the navigation that brought it (the document's on first load).
    const dataSince = documentHydrated ? Date.now() : performance.timeOrigin;
    documentHydrated = true;
    const loading = realtimeClient({ SUPABASE_URL: url, SUPABASE_ANON_KEY: anonKey });
    let client: RealtimeClient | null = null;
    let progress = initialProgress;
    let channel: RealtimeChannel | null = null;
    let stopped = false;
    setState(progress.state);

    const step = (event: Parameters<typeof nextProgress>[1]) => {
      const before = progress;
      progress = nextProgress(progress, event, listensToChanges);
      setState(progress.state);
      if (progress.lives > before.lives) {
        if (before.lives > 0 || Date.now() - dataSince > STALE_AT_FIRST_LIVE_MS) latest.current.onCatchUp();
      }
    };

    (async () => {
      const loaded = await loading;
      await leaving.get(topic);
      // The user's token first: a join without it would run as anon (docs/local-stack.md "Realtime").
      await loaded.setAuth();
      if (stopped) return;
      client = loaded;
      channel = loaded.channel(topic, {
        config: {
          private: isPrivate,
          ...(presenceKey ? { presence: { key: presenceKey } } : {}),
        },
      });
      latest.current.setup(channel);
      channel.on('system', {}, (payload: { extension?: string; status?: string }) =>
        step({ type: 'system', extension: payload.extension, status: payload.status }),
      );
      const joined = channel;
      joined.subscribe((status) => {
        if (status === 'SUBSCRIBED') latest.current.onJoined?.(joined);
        step({ type: 'status', status });
      });
    })();

    return () => {
      stopped = true;
      if (!client || !channel) return;
      const removal = client.removeChannel(channel).catch(() => undefined);
      leaving.set(topic, removal);
      void removal.then(() => {
        if (leaving.get(topic) === removal) leaving.delete(topic);
      });
    };
  }, [url, anonKey, topic, isPrivate, presenceKey, listensToChanges]);

  return state;
}

// Changes come in bursts (a reply updates its ticket too): one revalidation for a burst, at most
// MAX_WAIT_MS after its first change, so a busy inbox still updates within the second.
const DEBOUNCE_MS = 200;
const MAX_WAIT_MS = 1_000;

/**
 * A debounced revalidation of the page's loaders, for change events. A page in a background tab
 * waits until it is shown again, and a page without a network until it is back online: one
 * revalidation then, instead of one per change meanwhile. A revalidation the network fails anyway
 * keeps the page as shown (kept-page.ts: the page's clientLoader) and is tried again after 1, 2, 4 …
 * 30 s, or at once when the browser says it is back online.
 */
export function useRevalidateSoon(): () => void {
  const revalidator = useRevalidator();
  const latest = useRef(revalidator);
  latest.current = revalidator;
  const location = useLocation();
  const page = useMatches().at(-1)?.data;
  useEffect(() => keepShown(location, page), [location, page]);
  const timers = useRef<{
    wait?: ReturnType<typeof setTimeout>;
    retry?: ReturnType<typeof setTimeout>;
    first?: number;
    waiting?: boolean;
  }>({});
  useEffect(() => {
    const t = timers.current;
    const onBack = () => {
      if (document.visibilityState !== 'visible' || !navigator.onLine || !t.waiting) return;
      t.waiting = false;
      clearTimeout(t.retry);
      // Changes that came in just before are committed: this revalidation reads them, so their
      // pending one would only load the same page again.
      clearTimeout(t.wait);
      t.first = undefined;
      latest.current.revalidate();
    };
    const onUnreachable = () => {
      t.waiting = true;
      clearTimeout(t.retry);
      t.retry = setTimeout(onBack, retryDelayMs());
    };
    document.addEventListener('visibilitychange', onBack);
    window.addEventListener('online', onBack);
    window.addEventListener(UNREACHABLE_EVENT, onUnreachable);
    return () => {
      clearTimeout(t.wait);
      clearTimeout(t.retry);
      document.removeEventListener('visibilitychange', onBack);
      window.removeEventListener('online', onBack);
      window.removeEventListener(UNREACHABLE_EVENT, onUnreachable);
    };
  }, []);
  const schedule = useRef(() => {
    const t = timers.current;
    const now = Date.now();
    t.first ??= now;
    clearTimeout(t.wait);
    t.wait = setTimeout(
      () => {
        t.first = undefined;
        if (document.visibilityState === 'hidden' || !navigator.onLine) t.waiting = true;
        else latest.current.revalidate();
      },
      Math.max(0, Math.min(DEBOUNCE_MS, t.first + MAX_WAIT_MS - now)),
    );
  });
  return schedule.current;
}
