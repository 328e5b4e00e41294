// The email settings' form (/w/:slug/settings/email): the sender, the look, the DKIM selector; and an
// agent's signature (/account). The database checks the same (supabase/schemas/82_email_settings.sql,
// 86_signatures.sql); the logo is a file, read apart.
import { z } from 'zod';
import type { EmailSettings } from '../../../supabase/functions/_shared/email-brand.ts';
import { EMAIL_FOOTER_MAX_LENGTH, SENDER_NAME_MAX_LENGTH, SIGNATURE_MAX_LENGTH } from '../email/limits.ts';
import { errorMessage } from '../errors/catalogue.server.ts';

const message = (
  code:
    | 'bad_request'
    | 'sender_name_invalid'
    | 'sender_address_invalid'
    | 'accent_invalid'
    | 'footer_too_long'
    | 'dkim_selector_invalid'
    | 'signature_too_long',
) => ({
  error: errorMessage(code),
});

export const EmailSettingsSchema = z.object({
  intent: z.enum(['save', 'preview'], message('bad_request')),
  sender_name: z
    .string()
    .trim()
    .max(SENDER_NAME_MAX_LENGTH, message('sender_name_invalid'))
    // A display name is quoted in the From header: no quotes, angle brackets or control characters.
    .regex(/^[^\u0000-\u001f"<>]*$/, message('sender_name_invalid'))
    .optional(),
  sender_address: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, message('sender_address_invalid'))
    .regex(
      /^[^@\s"<>,;()\\]+@[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/,
      message('sender_address_invalid'),
    )
    .optional(),
  accent_color: z
    .string(message('accent_invalid'))
    .trim()
    .toLowerCase()
    .regex(/^#[0-9a-f]{6}$/, message('accent_invalid')),
  footer: z.string().max(EMAIL_FOOTER_MAX_LENGTH, message('footer_too_long')).optional(),
  dkim_selector: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, message('dkim_selector_invalid'))
    .optional(),
  remove_logo: z.literal('on', message('bad_request')).optional(),
});

export type EmailSettingsForm = z.infer<typeof EmailSettingsSchema>;

/** The settings the form says, over the saved ones for what it doesn't hold (the logo, the verification). */
export function typedSettings(
  v: EmailSettingsForm,
  saved: Pick<EmailSettings, 'logo_path' | 'verified_domain'> | null,
): EmailSettings & { dkim_selector: string | null } {
  return {
    sender_name: v.sender_name || null,
    sender_address: v.sender_address || null,
    accent_color: v.accent_color,
    footer: v.footer?.trim() || null,
    dkim_selector: v.dkim_selector || null,
    logo_path: v.remove_logo ? null : (saved?.logo_path ?? null),
    verified_domain: saved?.verified_domain ?? null,
  };
}

/** /account: an agent's signature; empty removes it. */
export const SignatureSchema = z.object({
  intent: z.literal('signature', message('bad_request')),
  signature: z.string().max(SIGNATURE_MAX_LENGTH, message('signature_too_long')).trim().optional(),
});
