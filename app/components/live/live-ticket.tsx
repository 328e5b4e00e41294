// An agent's ticket, live (docs/product.md §1 "never two agents answering the same customer"): new
// messages and other agents' changes to status, priority and assignee run the page's loader again;
// presence on the private channel `ticket:<id>` shows who else has it open, and a throttled signal
// from the composer shows who is writing. Names come only from what the database vouches for: each
// page announces its own presence entry, and says it is typing, through an RPC that broadcasts with
// the caller's auth.uid(); members can't broadcast on the channel themselves
// (docs/decisions/037-presence-the-server-vouches-for.md). The server's traffic cop (post_message's
// last_seen_message_id) stays the last line.
import type { RealtimeChannel } from '@supabase/realtime-js';
import { useEffect, useRef, useState } from 'react';
import { callRpc } from '~/lib/realtime/client.ts';
import { type PresenceEntries, type Vouches, vouchedViewers } from '~/lib/realtime/vouched-presence.ts';
import { ConnectionStatus } from './connection-status.tsx';
import { useLiveChannel, useRevalidateSoon } from './use-live-channel.ts';

/** A typing signal is shown this long after the last one (they come every 2 s while typing, typing-signal.ts). */
export const TYPING_SHOWN_FOR_MS = 5_000;

type Writing = 'reply' | 'note';
/** What the database broadcasts (70_realtime.sql): the user is its caller's auth.uid(). */
interface TypingSignal {
  user_id: string;
  kind: Writing;
}
interface ViewerSignal {
  user_id: string;
  presence_ref: string;
}

export function LiveTicket({
  ticketId,
  me,
  members,
}: {
  ticketId: string;
  me: string;
  members: { user_id: string; name: string }[];
}) {
  const revalidate = useRevalidateSoon();
  const [here, setHere] = useState<string[]>([]);
  const [typing, setTyping] = useState<Record<string, Writing>>({});
  const channelRef = useRef<RealtimeChannel | null>(null);
  const typingTimers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const vouches = useRef<Vouches>([]);
  // This page's presence key: random, so the first entry under it is this page's own (a forger can
  // track under it only after seeing it), and that entry's ref (on the current join) is what it announces.
  const [key] = useState(() => crypto.randomUUID());
  const own = useRef<string | null>(null);

  const announce = () => {
    if (own.current) void callRpc('announce_ticket_viewer', { p_ticket_id: ticketId, p_presence_ref: own.current });
  };
  const showViewers = (channel: RealtimeChannel) =>
    setHere(vouchedViewers(channel.presenceState() as PresenceEntries, vouches.current, me));

  const stopTyping = (userId: string) => {
    clearTimeout(typingTimers.current.get(userId));
    typingTimers.current.delete(userId);
    setTyping(({ [userId]: _, ...rest }) => rest);
  };
  // A message ends its author's typing of that kind only: a note's change event can come after the author's
  // signal that a reply is begun (broadcasts and table changes reach the page by different ways).
  const typed = useRef<Record<string, Writing>>({});
  typed.current = typing;

  // Another ticket in the same page (a link from the requester card): nobody is known there yet.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the ticket changes
  useEffect(() => {
    setHere([]);
    setTyping({});
    vouches.current = [];
  }, [ticketId]);

  const state = useLiveChannel({
    topic: `ticket:${ticketId}`,
    private: true,
    presenceKey: key,
    listensToChanges: true,
    setup: (channel) => {
      channelRef.current = channel;
      channel
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'messages', filter: `ticket_id=eq.${ticketId}` },
          (change) => {
            const { author_id: author, kind } = change.new as { author_id?: string; kind?: Writing };
            if (author && (!kind || typed.current[author] === kind)) stopTyping(author);
            revalidate();
          },
        )
        .on(
          'postgres_changes',
          { event: 'UPDATE', schema: 'public', table: 'tickets', filter: `id=eq.${ticketId}` },
          revalidate,
        )
        .on('presence', { event: 'sync' }, () => showViewers(channel))
        .on('presence', { event: 'join' }, ({ key: joined, newPresences }) => {
          if (joined !== key) {
            // Someone opened the ticket: tell them who is here (they missed the earlier announcements).
            announce();
          } else if (!own.current) {
            own.current = newPresences[0].presence_ref;
            announce();
          }
        })
        .on('broadcast', { event: 'viewer' }, ({ payload }: { payload: ViewerSignal }) => {
          vouches.current.push([payload.presence_ref, payload.user_id]);
          showViewers(channel);
        })
        .on('broadcast', { event: 'typing' }, ({ payload }: { payload: TypingSignal }) => {
          if (payload.user_id === me) return;
          clearTimeout(typingTimers.current.get(payload.user_id));
          typingTimers.current.set(
            payload.user_id,
            setTimeout(() => stopTyping(payload.user_id), TYPING_SHOWN_FOR_MS),
          );
          setTyping((t) => ({ ...t, [payload.user_id]: payload.kind }));
        });
    },
    // Presence is tracked again on each join, as a new entry (a new ref) to announce.
    onJoined: (channel) => {
      own.current = null;
      void channel.track({});
    },
    onCatchUp: revalidate,
  });

  // The composer's keystrokes, as typing signals while the channel is joined (loaded on demand).
  useEffect(() => {
    let stop: (() => void) | undefined;
    let gone = false;
    void import('./typing-signal.ts').then(({ listenForTyping }) => {
      if (gone) return;
      stop = listenForTyping((kind) => {
        if (channelRef.current?.state !== 'joined') return false;
        void callRpc('signal_ticket_typing', { p_ticket_id: ticketId, p_kind: kind });
        return true;
      });
    });
    return () => {
      gone = true;
      stop?.();
    };
  }, [ticketId]);

  useEffect(() => {
    const timers = typingTimers.current;
    return () => {
      for (const timer of timers.values()) clearTimeout(timer);
    };
  }, []);

  // Before the channel answers, the bar's place is kept: nothing moves when it appears (app.css .live-bar).
  if (!state) return <div className="live-bar" />;
  const name = (id: string) => members.find((m) => m.user_id === id)?.name ?? 'Someone';
  return (
    <div className="live-bar" data-testid="live-ticket">
      <ConnectionStatus state={state} />
      {here.length ? (
        <ul className="live-here" aria-label="Also viewing" data-testid="live-viewers">
          {here.map((id) => (
            <li key={id} className={typing[id] ? 'live-here__person live-here__person--typing' : 'live-here__person'}>
              {name(id)}
              {typing[id] ? (
                <span className="live-here__typing">
                  {typing[id] === 'note' ? ' is writing a note…' : ' is typing a reply…'}
                </span>
              ) : (
                <span className="muted"> is viewing</span>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
