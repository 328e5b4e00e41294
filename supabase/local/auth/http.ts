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
