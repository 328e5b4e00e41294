// The Realtime connection as the user sees it (docs/product.md §4): connecting → live → reconnecting.
import type { ConnectionState } from '~/lib/realtime/connection.ts';

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

export function ConnectionStatus({ state }: { state: ConnectionState }) {
  return (
    <span className={`live-status live-status--${state}`} role="status" title={TITLES[state]} data-testid="live-status">
      <span className="live-status__dot" aria-hidden="true" />
      {LABELS[state]}
    </span>
  );
}
