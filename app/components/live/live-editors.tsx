// "Who else is editing" on an article's editor (docs/product.md §2.3): presence on the private channel
// `help-article:<id>` (members of its workspace only: 65_help_center.sql). Only ids the page knows as
// the workspace's members are named; anything else on the channel is left out.
import { useState } from 'react';
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
  const state = useLiveChannel({
    topic: `help-article:${articleId}`,
    private: true,
    presenceKey: me,
    listensToChanges: false,
    setup: (channel) => {
      channel.on('presence', { event: 'sync' }, () => setHere(Object.keys(channel.presenceState())));
    },
    onJoined: (channel) => void channel.track({ user_id: me }),
    onCatchUp: () => undefined,
  });
  if (!state) return null;
  const others = members.filter((m) => m.user_id !== me && here.includes(m.user_id));
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
