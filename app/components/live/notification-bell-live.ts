// The bell's live part, loaded on demand after the page (notification-bell.tsx): any change to the
// member's notifications (a new one, one read elsewhere) asks the server for the count again, and so does
// every (re)join once the server says changes flow: the first, since the page's count may be older than
// the subscription, and each after a cut, since changes made meanwhile are not replayed. A plain function
// on the page's one Realtime client (from use-live-channel.ts, so the live pages' chunk stays whole).
import type { RealtimeChannel, RealtimeClient } from '@supabase/realtime-js';
import type { RealtimeEnv } from '~/lib/realtime/client.ts';
import { realtimeClient } from './use-live-channel.ts';

async function fetchCount(onCount: (n: number) => void) {
  try {
    const res = await fetch('/notifications/unread', { headers: { Accept: 'application/json' }, cache: 'no-store' });
    const body = res.ok ? ((await res.json()) as { unread: number | null }) : null;
    if (body && typeof body.unread === 'number') onCount(body.unread);
  } catch {
    // Offline: the next change or rejoin asks again.
  }
}

/** Follows `userId`'s unread count; returns what stops it. */
export function watchBell(env: RealtimeEnv, userId: string, onCount: (n: number) => void): () => void {
  const refresh = () => void fetchCount(onCount);
  let client: RealtimeClient | null = null;
  let channel: RealtimeChannel | null = null;
  let stopped = false;
  // The user's token first: a join without it would run as anon (README "Realtime").
  void realtimeClient(env).then(async (loaded) => {
    await loaded.setAuth();
    if (stopped) return;
    client = loaded;
    channel = loaded
      .channel(`notifications:${userId}`)
      .on(
        'postgres_changes',
        { event: '*', schema: 'public', table: 'notifications', filter: `recipient_id=eq.${userId}` },
        refresh,
      )
      .on('system', {}, (p: { extension?: string; status?: string }) => {
        if (p.extension === 'postgres_changes' && p.status === 'ok') refresh();
      })
      .subscribe();
  });
  return () => {
    stopped = true;
    if (client && channel) void client.removeChannel(channel);
  };
}
