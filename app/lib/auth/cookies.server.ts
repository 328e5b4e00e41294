// The app's own cookies, signed with SESSION_SECRET. The Supabase session cookies are the
// library's (app/lib/supabase/client.server.ts); these only carry the sign-in step between two pages.
import { createCookie } from '@remix-run/node';
import { z } from 'zod';
import { OTP_VALID_SECONDS } from '../constants.ts';
import { env } from '../env.server.ts';
import { isHttps } from '../http/request-info.server.ts';

/**
 * The pending sign-in: which address the code went to, when (for the resend countdown) and
 * where to go afterwards. A cookie rather than a query parameter keeps the address out of
 * URLs, history and logs (docs/reference/remix-ssr.md §2.7).
 */
const pendingLoginCookie = createCookie('tend_login', {
  httpOnly: true,
  sameSite: 'lax',
  path: '/',
  maxAge: OTP_VALID_SECONDS,
  secrets: [env.SESSION_SECRET],
});

const PendingLoginSchema = z.object({
  email: z.string(),
  redirectTo: z.string(),
  sentAt: z.number(),
  /** No code was sent this time (Auth's 60 s between codes): the one to enter went out at sentAt. */
  earlier: z.boolean().default(false),
});
export type PendingLogin = z.output<typeof PendingLoginSchema>;

export async function readPendingLogin(request: Request): Promise<PendingLogin | null> {
  const value = await pendingLoginCookie.parse(request.headers.get('Cookie'));
  const parsed = PendingLoginSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export function writePendingLogin(request: Request, login: z.input<typeof PendingLoginSchema>): Promise<string> {
  return pendingLoginCookie.serialize(login, { secure: isHttps(request) });
}

export function clearPendingLogin(request: Request): Promise<string> {
  return pendingLoginCookie.serialize('', { maxAge: 0, secure: isHttps(request) });
}

/** One-time notices shown after a redirect ("A new code is on its way", "Saved"). */
const flashCookie = createCookie('tend_flash', {
  httpOnly: true,
  sameSite: 'lax',
  path: '/',
  maxAge: 60,
  secrets: [env.SESSION_SECRET],
});

export const FLASH = {
  codeResent: 'code_resent',
  saved: 'saved',
  signedOut: 'signed_out',
  sessionExpired: 'session_expired',
} as const;
export type Flash = (typeof FLASH)[keyof typeof FLASH];

export function setFlash(request: Request, flash: Flash): Promise<string> {
  return flashCookie.serialize(flash, { secure: isHttps(request) });
}

/** The flash (if any) and the Set-Cookie that clears it. */
export async function takeFlash(request: Request): Promise<{ flash: Flash | null; setCookie: string | null }> {
  const value = await flashCookie.parse(request.headers.get('Cookie'));
  const flash = (Object.values(FLASH) as string[]).includes(value) ? (value as Flash) : null;
  if (value === null || value === undefined) return { flash: null, setCookie: null };
  return { flash, setCookie: await flashCookie.serialize('', { maxAge: 0, secure: isHttps(request) }) };
}
