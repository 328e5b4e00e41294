// What a customer reads for each status (the portal, and the emails notify sends them). Plain TypeScript:
// app/lib/helpdesk/ticket-terms.ts re-exports it.
export const PORTAL_STATUS_LABELS: Record<'new' | 'open' | 'pending' | 'solved' | 'closed', string> = {
  new: 'Received',
  open: 'Open',
  pending: 'Awaiting your reply',
  solved: 'Solved',
  closed: 'Closed',
};
