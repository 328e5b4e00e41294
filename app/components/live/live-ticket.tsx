// An agent's ticket, live (docs/product.md §1 "never two agents answering the same customer"): new
// messages and other agents' changes to status, priority and assignee run the page's loader again;
// presence on the private channel `ticket:<id>` shows who else has it open, and a throttled signal
// from the composer shows who is writing. Names come only from what the database vouches for: each
// page announces its own presence entry, and says it is typing, through an RPC that broadcasts with
// the caller's auth.uid(); members can't broadcast on the channel themselves
// (docs/decisions/037-presence-the-server-vouches-for.md). The server's traffic cop (post_message's
// last_seen_message_id) stays the last line.
import type { RealtimeChannel } from '@supabase/realtime-js';
import { useRouteLoaderData } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';
import { callRpc } from '~/lib/realtime/client.ts';
import { addVouch, type PresenceEntries, type Vouches, vouchedViewers } from '~/lib/realtime/vouched-presence.ts';
import type { loader as rootLoader } from '~/root.tsx';
import { ConnectionStatus } from './connection-status.tsx';
import { useLiveChannel, useRevalidateSoon } from './use-live-channel.ts';

/** At most one typing signal per this while the agent types; shown this long after the last one. */
export const TYPING_SIGNAL_EVERY_MS = 2_000;
export const TYPING_SHOWN_FOR_MS = 5_000;

/** Others joining are told who is here again after this (one announcement for a burst of joins). */
const ANNOUNCE_AFTER_JOIN_MS = 300;

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
type Entry = { presence_ref: string; nonce?: string };

/** The composer's text field and its kind radios (the route's form.hd-composer). */
const COMPOSER = 'form.hd-composer';

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
  const env = useRouteLoaderData<typeof rootLoader>('root')?.ENV;
  const [here, setHere] = useState<string[]>([]);
  const [typing, setTyping] = useState<Record<string, Writing>>({});
  const channelRef = useRef<RealtimeChannel | null>(null);
  const typingTimers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const vouches = useRef<Vouches>(new Map());
  // This page's own presence entry on the current join: tracked with a nonce of its own, so the first
  // entry under my key carrying it is mine (a forger can copy it only after seeing it).
  const own = useRef<{ nonce: string; ref: string | null }>({ nonce: '', ref: null });
  const announceTimer = useRef<ReturnType<typeof setTimeout>>();

  const signal = (name: 'announce_ticket_viewer' | 'signal_ticket_typing', args: Record<string, unknown>) => {
    if (!env) return;
    const { SUPABASE_URL, SUPABASE_ANON_KEY } = env;
    void callRpc({ SUPABASE_URL, SUPABASE_ANON_KEY }, name, { p_ticket_id: ticketId, ...args });
  };
  // For the composer's listener, set up once: the latest ticket and environment.
  const latestSignal = useRef(signal);
  latestSignal.current = signal;
  const announce = () => {
    if (own.current.ref) signal('announce_ticket_viewer', { p_presence_ref: own.current.ref });
  };
  const showViewers = (channel: RealtimeChannel) =>
    setHere(vouchedViewers(channel.presenceState() as PresenceEntries, vouches.current, me));

  const stopTyping = (userId: string) => {
    clearTimeout(typingTimers.current.get(userId));
    typingTimers.current.delete(userId);
    setTyping(({ [userId]: _, ...rest }) => rest);
  };

  // Another ticket in the same page (a link from the requester card): nobody is known there yet.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the ticket changes
  useEffect(() => {
    setHere([]);
    setTyping({});
    vouches.current.clear();
  }, [ticketId]);

  const state = useLiveChannel({
    topic: `ticket:${ticketId}`,
    private: true,
    presenceKey: me,
    listensToChanges: true,
    setup: (channel) => {
      channelRef.current = channel;
      channel
        .on(
          'postgres_changes',
          { event: 'INSERT', schema: 'public', table: 'messages', filter: `ticket_id=eq.${ticketId}` },
          (change) => {
            const author = (change.new as { author_id?: string }).author_id;
            if (author) stopTyping(author);
            revalidate();
          },
        )
        .on(
          'postgres_changes',
          { event: 'UPDATE', schema: 'public', table: 'tickets', filter: `id=eq.${ticketId}` },
          revalidate,
        )
        .on('presence', { event: 'sync' }, () => showViewers(channel))
        .on('presence', { event: 'join' }, ({ key, newPresences }) => {
          const mine =
            !own.current.ref && key === me && (newPresences as Entry[]).find((p) => p.nonce === own.current.nonce);
          if (mine) {
            own.current.ref = mine.presence_ref;
            announce();
          } else if (key !== me) {
            // Someone opened the ticket: tell them who is here (they missed the earlier announcements).
            clearTimeout(announceTimer.current);
            announceTimer.current = setTimeout(announce, ANNOUNCE_AFTER_JOIN_MS);
          }
        })
        .on('presence', { event: 'leave' }, ({ leftPresences }) => {
          for (const p of leftPresences as Entry[]) vouches.current.delete(p.presence_ref);
        })
        .on('broadcast', { event: 'viewer' }, ({ payload }: { payload: ViewerSignal }) => {
          if (!payload?.user_id || !payload.presence_ref) return;
          addVouch(vouches.current, payload.presence_ref, payload.user_id);
          showViewers(channel);
        })
        .on('broadcast', { event: 'typing' }, ({ payload }: { payload: TypingSignal }) => {
          if (!payload?.user_id || payload.user_id === me) return;
          clearTimeout(typingTimers.current.get(payload.user_id));
          typingTimers.current.set(
            payload.user_id,
            setTimeout(() => stopTyping(payload.user_id), TYPING_SHOWN_FOR_MS),
          );
          setTyping((t) => ({ ...t, [payload.user_id]: payload.kind === 'note' ? 'note' : 'reply' }));
        });
    },
    // Presence is tracked again on each join, as a new entry (a new ref) to announce.
    onJoined: (channel) => {
      own.current = { nonce: crypto.randomUUID(), ref: null };
      void channel.track({ nonce: own.current.nonce });
    },
    onCatchUp: revalidate,
  });

  // The composer's keystrokes, throttled to one signal per TYPING_SIGNAL_EVERY_MS; a switch between
  // reply and note, or a new message after sending one, is told at once.
  useEffect(() => {
    let last = 0;
    let lastKind: Writing | null = null;
    const onInput = (event: Event) => {
      const field = event.target as HTMLElement;
      const form = field.closest?.(COMPOSER) as HTMLFormElement | null;
      if (!form || field.tagName !== 'TEXTAREA') return;
      const kind = (form.elements.namedItem('kind') as RadioNodeList | null)?.value === 'note' ? 'note' : 'reply';
      if (kind === lastKind && Date.now() - last < TYPING_SIGNAL_EVERY_MS) return;
      const channel = channelRef.current;
      if (channel?.state !== 'joined') return;
      last = Date.now();
      lastKind = kind;
      latestSignal.current('signal_ticket_typing', { p_kind: kind });
    };
    const onSubmit = (event: Event) => {
      if ((event.target as HTMLElement).closest?.(COMPOSER)) lastKind = null;
    };
    document.addEventListener('input', onInput);
    document.addEventListener('submit', onSubmit);
    return () => {
      document.removeEventListener('input', onInput);
      document.removeEventListener('submit', onSubmit);
    };
  }, []);

  useEffect(() => {
    const timers = typingTimers.current;
    return () => {
      for (const timer of timers.values()) clearTimeout(timer);
      clearTimeout(announceTimer.current);
    };
  }, []);

  if (!state) return null;
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
