// A workspace's email settings' limits (docs/product.md#a-workspaces-emails), apart from app/lib/constants.ts so that
// pages without the email settings don't carry them (docs/decisions/006-javascript-budget.md).
// supabase/schemas/82_email_settings.sql and the `branding` bucket in supabase/config.toml repeat them
// (tests/unit/rules.test.ts holds them to these).
export const SENDER_NAME_MAX_LENGTH = 80;
export const EMAIL_FOOTER_MAX_LENGTH = 500;
export const LOGO_MAX_MB = 1;
/** An agent's signature (supabase/schemas/86_signatures.sql repeats it). */
export const SIGNATURE_MAX_LENGTH = 1000;
export const LOGO_MAX_BYTES = LOGO_MAX_MB * 1024 * 1024;
