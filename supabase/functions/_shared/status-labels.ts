// What a customer reads for each status (the portal, and the emails notify sends them), and what the
// team reads (the app, and the notification emails). Plain TypeScript: app/lib/helpdesk/ticket-terms.ts
// re-exports both.
export const PORTAL_STATUS_LABELS: Record<'new' | 'open' | 'pending' | 'solved' | 'closed', string> = {
  new: 'Received',
  open: 'Open',
  pending: 'Awaiting your reply',
  solved: 'Solved',
  closed: 'Closed',
};

export const TEAM_STATUS_LABELS: Record<keyof typeof PORTAL_STATUS_LABELS, string> = {
  new: 'New',
  open: 'Open',
  pending: 'Pending',
  solved: 'Solved',
  closed: 'Closed',
};
