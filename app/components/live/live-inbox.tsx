// The inbox, live: any change to the workspace's tickets (new, status, assignee, priority, activity)
// or to their promises (a due time moved, a breach seen), and a note naming me (the Mentions view), runs the inbox's loader again, debounced, so rows and view counts (saved views' too) follow while the agent keeps their
// view, filters, search text, page and scroll. On a later page the cursor holds the agent's place, and
// new requests are counted in a link back to the newest.
import { useLocation } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { ConnectionStatus } from './connection-status.tsx';
import { useLiveChannel, useRevalidateSoon } from './use-live-channel.ts';

export function LiveInbox({
  workspaceId,
  me,
  laterPage,
  newestHref,
}: {
  workspaceId: string;
  /** The signed-in member: a note that names them reloads the page (its tickets don't change). */
  me: string;
  /** Newer tickets exist than those listed: the agent has paged on. */
  laterPage: boolean;
  newestHref: string;
}) {
  const revalidate = useRevalidateSoon();
  const { key } = useLocation();
  const [fresh, setFresh] = useState(0);
  // Counted from the page the agent navigated to (a revalidation keeps the location's key).
  // biome-ignore lint/correctness/useExhaustiveDependencies: the count restarts with each navigation
  useEffect(() => setFresh(0), [key]);
  const state = useLiveChannel({
    topic: `inbox:${workspaceId}`,
    listensToChanges: true,
    setup: (channel) =>
      channel
        .on(
          'postgres_changes',
          { event: '*', schema: 'public', table: 'tickets', filter: `workspace_id=eq.${workspaceId}` },
          (change) => {
            if (change.eventType === 'INSERT') setFresh((n) => n + 1);
            revalidate();
          },
        )
        // A due time moved or a breach was seen (the sweep): the badges follow.
        .on(
          'postgres_changes',
          { event: 'UPDATE', schema: 'public', table: 'ticket_sla', filter: `workspace_id=eq.${workspaceId}` },
          revalidate,
        )
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'message_mentions', filter: `user_id=eq.${me}` },
          revalidate,
        ),
    onCatchUp: revalidate,
  });
  // Before the channel answers, the bar's place is kept: nothing moves when it appears (app.css .live-bar).
  if (!state) return <div className="live-bar" />;
  return (
    <div className="live-bar">
      <ConnectionStatus state={state} />
      {laterPage && fresh > 0 ? (
        <a href={newestHref} className="live-new" data-testid="inbox-new">
          {fresh} new · show newest
        </a>
      ) : null}
    </div>
  );
}
