// Every server helper the inbox route (app/routes/w.$slug._index.tsx) uses, from one module: the
// browser build swaps a `.server` import for an empty stand-in, and one that only this route imports
// is folded into its chunk, while each shared one costs the page a file of its own (as
// ticket-page.server.ts; docs/decisions/006-javascript-budget.md).
export { requireUser } from '~/lib/auth/session.server.ts';
export { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
export { InboxSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
export { parseSubmission } from '~/lib/forms/schemas.server.ts';
export { log } from '~/lib/http/log.server.ts';
export { publicOrigin } from '~/lib/http/request-info.server.ts';
export { data, readFormData, redirectWithHeaders, requireSameOrigin } from '~/lib/http/responses.server.ts';
export { inboxFilters, parseSlug, requireMembership, throwNotFound } from '~/lib/helpdesk/queries.server.ts';
// Browser-safe, but used by the route's loader only.
export { errorMessage, errorStatus } from '~/lib/errors/catalogue.ts';
export { jsonPage } from '~/lib/helpdesk/json-page.ts';
