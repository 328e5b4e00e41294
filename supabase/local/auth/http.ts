// Request parsing shared by the endpoint modules.
import type { IncomingMessage } from 'node:http';
import { jsonObject, readBody } from '../http.ts';
import { parseSbForwardedFor } from '../trust.ts';
import { errors } from './errors.ts';

const MAX_BODY = 1024 * 1024; // GoTrue api.go: 1 MiB request body limit

export const readJson = async (req: IncomingMessage) =>
  jsonObject(await readBody(req, MAX_BODY, errors.tooLarge), errors.badJson);

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const obj = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

export function bearer(req: IncomingMessage): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

const resolved = new WeakMap<IncomingMessage, string | undefined>();

/**
 * The end user's address, decided once per request (utilities.GetIPAddress): Sb-Forwarded-For when
 * IP forwarding is on and its left-most value is an address (internal/sbff; the gateway lets it
 * through only with the secret key), else the address the gateway put in X-Forwarded-For. An
 * invalid Sb-Forwarded-For is logged and ignored, as upstream does.
 */
export function resolveClientIp(req: IncomingMessage, sbForwardedFor: boolean, warn: (m: string) => void) {
  let ip: string | undefined;
  if (sbForwardedFor) {
    try {
      ip = parseSbForwardedFor(req.headers['sb-forwarded-for'] as string | undefined);
    } catch (err) {
      warn(`error processing Sb-Forwarded-For: ${(err as Error).message}`);
    }
  }
  const fwd = req.headers['x-forwarded-for'];
  ip ??= typeof fwd === 'string' ? fwd.split(',')[0].trim() || undefined : undefined;
  resolved.set(req, ip);
  return ip;
}

export const clientIp = (req: IncomingMessage): string | undefined => resolved.get(req);

const EMAIL =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

/** GoTrue validateEmail: trimmed, lower-cased, ≤ 255 chars, a plausible address. */
export function normalizeEmail(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const email = v.trim().toLowerCase();
  return email.length <= 255 && EMAIL.test(email) ? email : undefined;
}

export const isUuid = (v: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);

/** GoTrue mail.go validateEmail: the three messages it answers with (400 validation_failed). */
export function validateEmail(v: unknown): string {
  if (v === undefined || v === null || v === '') throw errors.validation('An email address is required');
  if (typeof v !== 'string') throw errors.validation('Unable to validate email address: invalid format');
  if (v.length > 255) throw errors.validation('An email address is too long');
  const email = normalizeEmail(v);
  if (!email) throw errors.validation('Unable to validate email address: invalid format');
  return email;
}

/** GoTrue phone.go validatePhone: "+" and spaces dropped, then E.164 digits. */
export function validatePhone(v: unknown): string {
  const phone = typeof v === 'string' ? v.replace(/^\+/, '').replace(/ /g, '') : '';
  if (!/^[1-9][0-9]{1,14}$/.test(phone)) throw errors.validation('Invalid phone number format (E.164 required)');
  return phone;
}

/** GoTrue pkce.go validatePKCEParams: RFC 7636 §4.2 challenge, 43–128 chars of [A-Za-z0-9._~-]; method s256 or plain. */
export function pkceParams(body: Record<string, unknown>): { challenge: string; method: string } | undefined {
  const challenge = str(body.code_challenge) || undefined;
  const method = str(body.code_challenge_method)?.toLowerCase() || undefined;
  if (!challenge !== !method) throw errors.validation('PKCE flow requires code_challenge_method and code_challenge');
  if (!challenge || !method) return undefined;
  if (challenge.length < 43 || challenge.length > 128)
    throw errors.validation('code challenge has to be between 43 and 128 characters');
  if (!/^[A-Za-z0-9._~-]+$/.test(challenge))
    throw errors.validation(
      'code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes',
    );
  if (method !== 's256' && method !== 'plain')
    throw errors.validation(`code challenge method not supported: ${method}`);
  return { challenge, method };
}
