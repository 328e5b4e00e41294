// What every auth endpoint module gets.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import type { Mailer } from '../service.ts';
import { clientIp } from './http.ts';
import type { SessionContext } from './sessions.ts';

export interface AuthContext extends SessionContext {
  pool: pg.Pool;
  mailer: Mailer;
  apiUrl: string;
  /** Send times of this instance's auth emails in the last hour (RATE_LIMIT_EMAIL_SENT). */
  emailsSent: number[];
  log(message: string): void;
}

export type Handler = (ctx: AuthContext, req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

/** A transaction on a connection of the pool (connections.ts: a lost connection fails only this call). */
export { transaction as tx } from '../connections.ts';

export const requestMeta = (req: IncomingMessage) => ({
  userAgent: req.headers['user-agent'],
  ip: clientIp(req),
});
