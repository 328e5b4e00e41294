// A workspace's emails as its settings say (supabase/schemas/82_email_settings.sql;
// docs/decisions/046-sender-and-branding.md): whom they come from and how they look. Plain TypeScript:
// notify sends with it, the app's settings page previews with it.
import type { Brand } from './email-layout.tsx';
import { domainOf } from './sender-domain.ts';

/** The accent of a workspace that chose none (the table's default). */
export const DEFAULT_ACCENT = '#1d4ed8';
/** The public bucket of the workspaces' logos (supabase/config.toml). */
export const BRANDING_BUCKET = 'branding';

export interface EmailSettings {
  sender_name: string | null;
  sender_address: string | null;
  accent_color: string;
  logo_path: string | null;
  footer: string | null;
  verified_domain: string | null;
}

/** A logo's address: the public bucket, readable by any mail client. */
export const logoUrl = (supabaseUrl: string, path: string) =>
  `${supabaseUrl.replace(/\/+$/, '')}/storage/v1/object/public/${BRANDING_BUCKET}/${path}`;

export function brandOf(workspaceName: string, s: EmailSettings | null, supabaseUrl: string): Brand {
  return {
    name: s?.sender_name || workspaceName,
    accent: s?.accent_color ?? DEFAULT_ACCENT,
    logoUrl: s?.logo_path ? logoUrl(supabaseUrl, s.logo_path) : null,
    footer: s?.footer || null,
  };
}

/** Whether the sender address's domain is the one verified for the workspace. */
export const senderAddressVerified = (s: EmailSettings | null) =>
  !!s?.sender_address && !!s.verified_domain && domainOf(s.sender_address) === s.verified_domain.toLowerCase();

/**
 * The From of the workspace's emails: its sender name (else its own name) at its address once that
 * address's domain is verified, else at Tend's address (`fallback`, SMTP_FROM). Replies never depend on
 * it: every email's Reply-To is a reply+ address (docs/decisions/034-inbound-email-trust.md).
 */
export function senderOf(
  workspaceName: string,
  s: EmailSettings | null,
  fallback: string,
): { name: string; address: string } {
  const address = senderAddressVerified(s)
    ? s!.sender_address!
    : (/<([^>]+)>\s*$/.exec(fallback)?.[1] ?? fallback).trim();
  return { name: s?.sender_name || workspaceName, address };
}
