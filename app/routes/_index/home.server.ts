// Every server helper the front page (app/routes/_index.tsx) uses, from one module, as
// ticket-page.server.ts: its browser stand-in folds into the route's chunk, and every page that lists
// the front page in its route manifest names three files fewer (docs/decisions/006-javascript-budget.md).
export { FLASH, takeFlash } from '~/lib/auth/cookies.server.ts';
export { getOptionalUser } from '~/lib/auth/session.server.ts';
export { data } from '~/lib/http/responses.server.ts';
export { myRequests, myWorkspaces } from '~/lib/helpdesk/queries.server.ts';
