// Every server helper the inbox route (app/routes/w.$slug._index.tsx) uses, from one module: the
// browser build swaps a `.server` import for an empty stand-in, and one that only this route imports
// is folded into its chunk, while each shared one costs the page a file of its own (as
// ticket-page.server.ts; docs/decisions/006-javascript-budget.md).
export { requireUser } from '../auth/session.server.ts';
export { errorMessage, errorStatus } from '../errors/catalogue.ts';
export { mapDbError, throwDbError } from '../errors/from-db.server.ts';
export { InboxSchema } from '../forms/helpdesk-schemas.server.ts';
export { parseSubmission } from '../forms/schemas.server.ts';
export { log } from '../http/log.server.ts';
export { publicOrigin } from '../http/request-info.server.ts';
export { data, readFormData, redirectWithHeaders, requireSameOrigin } from '../http/responses.server.ts';
export { jsonPage } from './json-page.ts';
export { inboxFilters, parseSlug, requireMembership, throwNotFound } from './queries.server.ts';
