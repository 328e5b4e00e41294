// The Realtime connection as the user sees it (docs/product.md §4): connecting → live → reconnecting; and
// "Reconnecting…" too while the page's own data can't be loaded (kept-page.ts), though the socket is up.
import type { ConnectionState } from '~/lib/realtime/connection.ts';
import { useUnreachable } from './kept-page.ts';

const LABELS: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
};

const TITLES: Record<ConnectionState, string> = {
  connecting: 'Connecting to live updates',
  live: 'Changes appear here as they happen',
  reconnecting: 'Live updates are cut off; retrying. The page catches up once back.',
};

const UNREACHABLE_TITLE = 'Tend can’t be reached; retrying. The page catches up once back.';

export function ConnectionStatus({ state: socket }: { state: ConnectionState }) {
  const unreachable = useUnreachable();
  const state = unreachable ? 'reconnecting' : socket;
  return (
    <span
      className={`live-status live-status--${state}`}
      role="status"
      title={unreachable ? UNREACHABLE_TITLE : TITLES[state]}
      data-testid="live-status"
    >
      <span className="live-status__dot" aria-hidden="true" />
      {LABELS[state]}
    </span>
  );
}
