// What every auth endpoint module gets.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import type { AuthConfig } from '../config.ts';
import type { Mailer } from '../service.ts';
import { clientIp } from './http.ts';
import type { Signer } from './jwt.ts';

export interface AuthContext {
  signer: Signer;
  config: AuthConfig;
  /** The JWT issuer and GoTrue's API_EXTERNAL_URL: <api>/auth/v1 (or [auth] jwt_issuer). */
  issuer: string;
  pool: pg.Pool;
  mailer: Mailer;
  apiUrl: string;
  /** Send times of this instance's auth emails in the last hour (RATE_LIMIT_EMAIL_SENT). */
  emailsSent: number[];
  /** Send times of this instance's texts in the last hour (RATE_LIMIT_SMS_SENT). */
  smsSent: number[];
  log(message: string): void;
}

export type Handler = (ctx: AuthContext, req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

/** A transaction on a connection of the pool (connections.ts: a lost connection fails only this call). */
export { transaction as tx } from '../connections.ts';

export const requestMeta = (req: IncomingMessage) => ({
  userAgent: req.headers['user-agent'],
  ip: clientIp(req),
});
