// "Who else is editing" on an article's editor (docs/product.md#the-help-center-for-the-team): presence on the private
// channel `help-article:<id>` (members of its workspace only: 65_help_center.sql). Names come only from what
// the database vouches for, as on the ticket page (docs/decisions/037-presence-the-server-vouches-for.md):
// the page tracks under a random key, announces its own entry's presence_ref through
// announce_help_editor (broadcast by the database with the caller's auth.uid()), and shows a member
// while an entry they announced is present. Only ids the page knows as members are named.
import type { RealtimeChannel } from '@supabase/realtime-js';
import { useRef, useState } from 'react';
import { callRpc } from '~/lib/realtime/client.ts';
import { type PresenceEntries, type Vouches, vouchedViewers } from '~/lib/realtime/vouched-presence.ts';
import { ConnectionStatus } from './connection-status.tsx';
import { useLiveChannel } from './use-live-channel.ts';

export function LiveEditors({
  articleId,
  me,
  members,
}: {
  articleId: number;
  me: string;
  members: { user_id: string; name: string }[];
}) {
  const [here, setHere] = useState<string[]>([]);
  const vouches = useRef<Vouches>([]);
  // Random: the first entry under it is this page's own; that entry's ref is what it announces.
  const [key] = useState(() => crypto.randomUUID());
  const own = useRef<string | null>(null);
  const announce = () => {
    if (own.current) void callRpc('announce_help_editor', { p_article_id: articleId, p_presence_ref: own.current });
  };
  const show = (channel: RealtimeChannel) =>
    setHere(vouchedViewers(channel.presenceState() as PresenceEntries, vouches.current, me));

  const state = useLiveChannel({
    topic: `help-article:${articleId}`,
    private: true,
    presenceKey: key,
    listensToChanges: false,
    setup: (channel) => {
      channel
        .on('presence', { event: 'sync' }, () => show(channel))
        .on('presence', { event: 'join' }, ({ key: joined, newPresences }) => {
          // Someone opened the article: tell them who is here (they missed the earlier announcements).
          if (joined !== key) announce();
          else if (!own.current) {
            own.current = newPresences[0].presence_ref;
            announce();
          }
        })
        .on('broadcast', { event: 'editor' }, ({ payload }: { payload: { user_id: string; presence_ref: string } }) => {
          vouches.current.push([payload.presence_ref, payload.user_id]);
          show(channel);
        });
    },
    // Presence is tracked again on each join, as a new entry (a new ref) to announce.
    onJoined: (channel) => {
      own.current = null;
      void channel.track({});
    },
    onCatchUp: () => undefined,
  });
  // Before the channel answers, the bar's place is kept: nothing moves when it appears (app.css .live-bar).
  if (!state) return <div className="live-bar" />;
  const others = members.filter((m) => here.includes(m.user_id));
  return (
    <div className="live-bar" data-testid="live-editors">
      <ConnectionStatus state={state} />
      {others.length ? (
        <p className="live-here">
          Also editing: {others.map((m) => m.name).join(', ')}. If you both save, the second save is refused with the
          text kept.
        </p>
      ) : null}
    </div>
  );
}
