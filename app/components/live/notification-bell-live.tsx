// The bell's live part, loaded on demand after the page (notification-bell.tsx): any change to the
// member's notifications (a new one, one read elsewhere) asks the server for the count again, as does
// every time it becomes live (the first time too: the page's count may be older than the subscription, and
// changes made while cut off are not replayed).
import { useEffect } from 'react';
import { useLiveChannel } from './use-live-channel.ts';

async function fetchCount(onCount: (n: number) => void) {
  try {
    const res = await fetch('/notifications/unread', { headers: { Accept: 'application/json' }, cache: 'no-store' });
    const body = res.ok ? ((await res.json()) as { unread: number | null }) : null;
    if (body && typeof body.unread === 'number') onCount(body.unread);
  } catch {
    // Offline: the next change or reconnection asks again.
  }
}

export default function BellLive({ userId, onCount }: { userId: string; onCount: (n: number) => void }) {
  const refresh = () => void fetchCount(onCount);
  const state = useLiveChannel({
    topic: `notifications:${userId}`,
    listensToChanges: true,
    setup: (channel) =>
      channel.on(
        'postgres_changes',
        { event: '*', schema: 'public', table: 'notifications', filter: `recipient_id=eq.${userId}` },
        refresh,
      ),
    onCatchUp: () => undefined, // every return to live refreshes, below
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per return to live
  useEffect(() => {
    if (state === 'live') refresh();
  }, [state]);
  return null;
}
