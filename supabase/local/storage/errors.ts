// storage-api's error catalogue (src/internal/errors/codes.ts; docs/reference/storage-functions.md A0).
// The body carries the "real" status as a string; the HTTP status is 400 for every error but a 500,
// except the few that storage-api sends with their own status (userStatusCode: 403 role checks,
// 416 ranges, 404 unknown routes).
import type { ServerResponse } from 'node:http';
import { sendJson } from '../http.ts';
import type pg from 'pg';

export class StorageError extends Error {
  constructor(
    /** The status in the body (`statusCode: "404"`). */
    readonly statusCode: number,
    readonly code: string,
    /** storage-api's legacy `error` string; the code when the error has none. */
    readonly error: string,
    message: string,
    /** The HTTP status when it is not storage-api's usual 400/500. */
    readonly httpStatus = statusCode === 500 ? 500 : 400,
  ) {
    super(message);
  }

  body() {
    return { statusCode: String(this.statusCode), code: this.code, error: this.error, message: this.message };
  }
}

const make = (statusCode: number, code: string, message: string, error = code) =>
  new StorageError(statusCode, code, error, message);

export const errors = {
  noSuchBucket: () => make(404, 'NoSuchBucket', 'Bucket not found', 'Bucket not found'),
  noSuchKey: () => make(404, 'NoSuchKey', 'Object not found', 'not_found'),
  // storage-api renderer: the row exists but the backend has no file for it.
  fileMissing: () => make(404, 'NoSuchKey', 'The resource was not found', 'Not found'),
  keyAlreadyExists: () => make(409, 'KeyAlreadyExists', 'The resource already exists', 'Duplicate'),
  bucketAlreadyExists: () => make(409, 'BucketAlreadyExists', 'The resource already exists', 'Duplicate'),
  resourceAlreadyExists: () => make(409, 'ResourceAlreadyExists', 'The resource already exists', 'Duplicate'),
  bucketNotEmpty: () => make(409, 'ResourceNotEmpty', 'The bucket you tried to delete is not empty'),
  accessDenied: (message = 'Access denied') => make(403, 'AccessDenied', message, 'Unauthorized'),
  /** enforceJwtRole: the one AccessDenied sent with HTTP 403. */
  invalidRole: (message: string) => new StorageError(403, 'AccessDenied', 'Unauthorized', message, 403),
  entityTooLarge: (entity = 'object') =>
    make(413, 'EntityTooLarge', `The ${entity} exceeded the maximum allowed size`, 'Payload too large'),
  invalidMimeType: (mime: string) =>
    make(415, 'InvalidMimeType', `mime type ${mime} is not supported`, 'invalid_mime_type'),
  invalidContentType: () => make(415, 'InvalidMimeType', 'Invalid Content-Type header', 'invalid_mime_type'),
  invalidKey: (key: string) => make(400, 'InvalidKey', `Invalid key: ${key}`),
  invalidBucketName: () => make(400, 'InvalidBucketName', 'Bucket name invalid', 'Invalid Input'),
  invalidJwt: (message: string) => make(400, 'InvalidJWT', message || 'Invalid JWT'),
  invalidSignature: (message = 'Invalid signature') => make(400, 'InvalidSignature', message),
  expiredSignature: () => make(400, 'ExpiredToken', 'The provided token has expired.'),
  invalidRequest: (message: string) => make(400, 'InvalidRequest', message),
  noContent: () => make(400, 'InvalidRequest', 'No content provided'),
  invalidParameter: (name: string) => make(400, 'InvalidParameter', `Invalid Parameter ${name}`),
  invalidFileSizeLimit: () =>
    make(400, 'InvalidRequest', 'Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B'),
  /** Fastify schema validation failures keep HTTP 400 and say "Bad Request". */
  validation: (message: string) => new StorageError(400, 'InvalidRequest', 'Bad Request', message),
  invalidRange: () => new StorageError(416, 'InvalidRange', 'invalid_range', 'invalid range provided', 416),
  routeNotFound: (method: string, url: string) =>
    new StorageError(404, 'InvalidRequest', 'Not Found', `Route ${method}:${url} not found`, 404),
  featureNotEnabled: (feature: string) =>
    make(409, 'FeatureNotEnabled', `The feature ${feature} is not enabled for this resource`),
  /** ImageProcessingError: imgproxy's failure, in the words storage-api gives it (renderer/image.ts). */
  imageProcessing: (message: string) => make(400, 'InvalidRequest', message),
  internal: () => make(500, 'InternalError', 'Internal Server Error', 'Internal'),
  /** StorageBackendError.fromError: the file backend's own failure (ENOSPC, EACCES…), named and worded as Node's. */
  backend: (err: Error) => make(500, 'InternalError', err.message, err.name),
  database: (code: string) => make(500, 'DatabaseError', `database error, code: ${code}`),
  databaseTimeout: () =>
    new StorageError(544, 'DatabaseTimeout', 'DatabaseTimeout', 'The connection to the database timed out', 544),
};

/** storage-api DBError.fromDBError: what a Postgres error means to a client. */
export function fromPgError(err: pg.DatabaseError): StorageError {
  switch (err.code) {
    case '42501':
      return errors.accessDenied(
        err.message.includes('row-level security') ? 'new row violates row-level security policy' : err.message,
      );
    case '23505':
      return errors.resourceAlreadyExists();
    case '23503':
      return make(404, 'InvalidRequest', 'The related resource does not exist');
    case '57014':
      return errors.databaseTimeout();
    case '22P02':
      return make(400, 'InvalidParameter', err.message || 'Invalid value format or type conversion failed');
    default:
      return errors.database(err.code ?? 'unknown');
  }
}

export { sendJson };

export function sendError(res: ServerResponse, err: StorageError, headers: Record<string, string> = {}) {
  sendJson(res, err.httpStatus, err.body(), headers);
}
