// What every storage route module gets, and the request helpers they share.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Signer } from '../auth/jwt.ts';
import { jsonObject, readBody } from '../http.ts';
import type { Caller } from './caller.ts';
import type { Scope, StorageDb } from './db.ts';
import { errors } from './errors.ts';
import type { FileStore } from './files.ts';

export interface StorageContext {
  db: StorageDb;
  files: FileStore;
  /** Verifies user and API-key JWTs; signed URL tokens are verified by it too (storage-api verifyJWT). */
  signer: Signer;
  jwtSecret: string;
  /** [storage] file_size_limit: the project-wide cap on one object, in bytes. */
  globalLimit: number;
  /** [storage.image_transformation] enabled: /render/image and signed URLs' `transform`. */
  imageTransformation: boolean;
  /** Seconds a signed upload URL lasts (the CLI's SIGNED_UPLOAD_URL_EXPIRATION_TIME). */
  uploadUrlExpiry: number;
  log(message: string): void;
}

/** What writing objects needs: seeding from config.toml uses it without the HTTP side. */
export type Store = Pick<StorageContext, 'db' | 'files' | 'globalLimit'>;

export interface StorageRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Route params, percent-decoded; `*` is the object key. */
  params: Record<string, string>;
  /** Set for routes that read a JWT. */
  caller: Caller;
  /** storage-api's ROUTE_OPERATIONS name for this route. */
  operation: string;
  /** The transaction scope of this request's caller (or of the service role). */
  scope(caller?: Caller): Scope;
}

export type Handler = (ctx: StorageContext, r: StorageRequest) => Promise<void>;

const MAX_JSON = 1024 * 1024; // Fastify's default bodyLimit

/** A JSON request body (an object; `{}` when empty), read with Fastify's limit and messages. */
export const readJson = async (req: IncomingMessage) =>
  jsonObject(await readBody(req, MAX_JSON, () => errors.validation('Request body is too large')), () =>
    errors.validation("Body is not valid JSON but content-type is set to 'application/json'"),
  );

// Ajv-style messages, as Fastify's schema validation words them.
export const need = {
  string(body: Record<string, unknown>, key: string): string {
    if (body[key] === undefined) throw errors.validation(`body must have required property '${key}'`);
    if (typeof body[key] !== 'string') throw errors.validation(`body/${key} must be string`);
    return body[key] as string;
  },
  optString(body: Record<string, unknown>, key: string): string | undefined {
    if (body[key] === undefined || body[key] === null) return undefined;
    if (typeof body[key] !== 'string') throw errors.validation(`body/${key} must be string`);
    return body[key] as string;
  },
  int(body: Record<string, unknown>, key: string, min: number, fallback?: number): number {
    const v = body[key] ?? fallback;
    if (v === undefined) throw errors.validation(`body must have required property '${key}'`);
    if (typeof v !== 'number' || !Number.isInteger(v)) throw errors.validation(`body/${key} must be integer`);
    if (v < min) throw errors.validation(`body/${key} must be >= ${min}`);
    return v;
  },
  object(body: Record<string, unknown>, key: string): Record<string, unknown> {
    const v = body[key];
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw errors.validation(`body/${key} must be object`);
    return v as Record<string, unknown>;
  },
  oneOf<T extends string>(value: unknown, where: string, allowed: readonly T[], fallback: T): T {
    if (value === undefined || value === null) return fallback;
    if (!allowed.includes(value as T)) throw errors.validation(`${where} must be equal to one of the allowed values`);
    return value as T;
  },
};

/** storage-api returns the bigint file_size_limit as a number; pg hands it over as a string. */
export const toNumber = (v: unknown) => (v === null || v === undefined ? null : Number(v));
