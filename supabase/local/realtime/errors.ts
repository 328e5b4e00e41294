// Realtime's HTTP error answers, as the Phoenix server words them (docs/reference/realtime.md §1.1,
// §4.4; tenant_broadcast_controller.ex, fallback_controller.ex, user_socket.ex): one table, so
// handlers never write an error body by hand. A channel's refusals are JoinError reasons (channel.ts).
import type { ServerResponse } from 'node:http';
import { sendJson } from '../http.ts';

export class RealtimeError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(JSON.stringify(body));
  }
}

const message = (status: number, text: string) => new RealtimeError(status, { message: text });
/** Ecto changeset errors, as the fallback controller renders them: field → messages. */
const changeset = (errors: Record<string, unknown>) => new RealtimeError(422, { errors });

export const errors = {
  notFound: () => message(404, 'Not Found'),
  unauthorized: () => message(401, 'Unauthorized'),
  /** A private topic the sender's policies don't let them write to: 403 with the same word. */
  forbidden: () => message(403, 'Unauthorized'),
  badRequest: () => message(400, 'Bad Request'),
  tooLarge: () => message(413, 'Payload Too Large'),
  unsupportedMediaType: () =>
    new RealtimeError(415, { error: 'Unsupported Media Type. Use application/json or application/octet-stream' }),
  rateLimited: () => message(429, 'You have exceeded your rate limit'),
  batchTooLarge: () => message(429, 'Too many messages to broadcast, please reduce the batch size'),
  databaseUnavailable: () => message(422, 'Tenant database unavailable'),
  policyError: () => message(422, 'RLS policy error'),
  payloadTooLarge: () => changeset({ payload: ['Payload size exceeds tenant limit'] }),
  messages: (why: unknown) => changeset({ messages: why }),
  /** The stack's own: realtime stopped (tests stop and start it). */
  notRunning: () => message(503, 'realtime is not running'),
  // The websocket upgrade's refusals (user_socket.ex connect/3) say `error`, not `message`.
  connect: (status: number, text: string) => new RealtimeError(status, { error: text }),
};

export const sendError = (res: ServerResponse, err: RealtimeError) => sendJson(res, err.status, err.body);
