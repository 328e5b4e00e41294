// The help center's limits (docs/product.md §9 and docs/product.md#the-help-center-public), apart from
// app/lib/constants.ts so that pages without the help center don't carry them (the constants chunk is every page's;
// docs/decisions/006-javascript-budget.md). supabase/schemas/65_help_center.sql repeats the lengths.
export const ARTICLE_TITLE_MAX_LENGTH = 150;
export const ARTICLE_BODY_MAX_LENGTH = 50_000;
export const COLLECTION_TITLE_MAX_LENGTH = 80;
export const COLLECTION_DESCRIPTION_MAX_LENGTH = 300;
/** The longest help search kept (more is cut). */
export const HELP_SEARCH_MAX_LENGTH = 200;
export const HELP_SEARCH_RESULTS = 20;
/** Articles suggested while a customer writes a request's subject. */
export const HELP_SUGGESTIONS = 3;
/** A suggestion opened and no request within this long is a deflection (help_report). */
export const DEFLECTION_MINUTES = 30;
export const HELP_VOTES_PER_IP = { limit: 30, windowSeconds: 10 * 60 } as const;
/** The agents' article list (/w/:slug/help). */
export const HELP_LIST_PAGE_SIZE = 50;
