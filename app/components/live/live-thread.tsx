// A requester's thread, live: the team's replies and status changes appear as they happen. The
// channel listens to postgres_changes only; Realtime checks each change against the requester's RLS,
// so internal notes never reach them.
import { ConnectionStatus } from './connection-status.tsx';
import { useLiveChannel, useRevalidateSoon } from './use-live-channel.ts';

export function LiveThread({ ticketId }: { ticketId: string }) {
  const revalidate = useRevalidateSoon();
  const state = useLiveChannel({
    topic: `request:${ticketId}`,
    listensToChanges: true,
    setup: (channel) =>
      channel
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'messages', filter: `ticket_id=eq.${ticketId}` },
          revalidate,
        )
        .on(
          'postgres_changes',
          { event: 'UPDATE', schema: 'public', table: 'tickets', filter: `id=eq.${ticketId}` },
          revalidate,
        ),
    onCatchUp: revalidate,
  });
  // Before the channel answers, the bar's place is kept: nothing moves when it appears (app.css .live-bar).
  if (!state) return <div className="live-bar" />;
  return (
    <div className="live-bar">
      <ConnectionStatus state={state} />
    </div>
  );
}
