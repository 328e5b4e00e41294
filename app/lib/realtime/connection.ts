// The connection state a live page shows (docs/product.md §4 "Realtime connection"): connecting → live →
// reconnecting → live. Pure, so the rules are unit-tested: a channel is live once joined and, when it
// listens to postgres_changes, once the server says changes flow ("Subscribed to PostgreSQL").

export type ConnectionState = 'connecting' | 'live' | 'reconnecting';

export interface ChannelProgress {
  state: ConnectionState;
  joined: boolean;
  /** The server's postgres_changes system "ok" since the latest join. */
  changesFlowing: boolean;
  /** How many times it became live; from the second time on, the page catches up on what it missed. */
  lives: number;
}

export type ChannelEvent =
  | { type: 'status'; status: 'SUBSCRIBED' | 'CHANNEL_ERROR' | 'TIMED_OUT' | 'CLOSED' | string }
  | { type: 'system'; extension?: string; status?: string };

export const initialProgress: ChannelProgress = { state: 'connecting', joined: false, changesFlowing: false, lives: 0 };

export function nextProgress(p: ChannelProgress, event: ChannelEvent, listensToChanges: boolean): ChannelProgress {
  let { joined, changesFlowing } = p;
  if (event.type === 'status') {
    if (event.status === 'SUBSCRIBED') {
      joined = true;
      changesFlowing = false;
    } else {
      // CHANNEL_ERROR (socket closed, server error), TIMED_OUT (no join reply in 10 s), CLOSED:
      // realtime-js rejoins on its own with the back-off.
      joined = false;
      changesFlowing = false;
    }
  } else if (event.extension === 'postgres_changes') {
    // Realtime: "Subscribed to PostgreSQL" (ok) or "Realtime was unable to connect to the project database" (error).
    changesFlowing = event.status === 'ok';
  }
  const live = joined && (changesFlowing || !listensToChanges);
  // Once it has been live, or once a join failed (realtime-js retries on its own), it is reconnecting.
  const failed = event.type === 'status' && event.status !== 'SUBSCRIBED';
  const state: ConnectionState = live
    ? 'live'
    : failed || p.lives > 0 || p.state === 'reconnecting'
      ? 'reconnecting'
      : 'connecting';
  return { state, joined, changesFlowing, lives: p.lives + (live && p.state !== 'live' ? 1 : 0) };
}
