// An agent's ticket, live (docs/product.md §1 "never two agents answering the same customer"): new
// messages and other agents' changes to status, priority and assignee run the page's loader again;
// presence on the private channel `ticket:<id>` shows who else has it open, and a throttled
// broadcast from the composer shows who is writing. The server's traffic cop (post_message's
// last_seen_message_id) stays the last line.
import type { RealtimeChannel } from '@supabase/realtime-js';
import { useEffect, useRef, useState } from 'react';
import { ConnectionStatus } from './connection-status.tsx';
import { useLiveChannel, useRevalidateSoon } from './use-live-channel.ts';

/** At most one typing signal per this while the agent types; shown this long after the last one. */
export const TYPING_SIGNAL_EVERY_MS = 2_000;
export const TYPING_SHOWN_FOR_MS = 5_000;

type Writing = 'reply' | 'note';
interface TypingSignal {
  user_id: string;
  kind: Writing;
}

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
  const [here, setHere] = useState<string[]>([]);
  const [typing, setTyping] = useState<Record<string, Writing>>({});
  const channelRef = useRef<RealtimeChannel | null>(null);
  const typingTimers = useRef(new Map<string, ReturnType<typeof setTimeout>>());

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
        .on('presence', { event: 'sync' }, () => {
          setHere(Object.keys(channel.presenceState()).filter((id) => id !== me));
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
    onJoined: (channel) => void channel.track({ user_id: me }),
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
      void channel.send({ type: 'broadcast', event: 'typing', payload: { user_id: me, kind } satisfies TypingSignal });
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
  }, [me]);

  useEffect(() => {
    const timers = typingTimers.current;
    return () => {
      for (const timer of timers.values()) clearTimeout(timer);
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
