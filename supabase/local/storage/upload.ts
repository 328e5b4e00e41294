// The body of an upload, as storage-api's fileUploadFromRequest reads it (src/storage/uploader.ts):
// multipart/form-data (what supabase-js sends for a Blob or File: fields `cacheControl`, `metadata`,
// then the file) or a raw body (a Buffer, string or stream: `content-type`, `cache-control`,
// base64-JSON `x-metadata`). Nothing is buffered: the file part stays a paused stream until the
// upload has been allowed.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { errors } from './errors.ts';

export interface FileUpload {
  body: Readable;
  mimeType: string;
  cacheControl: string;
  userMetadata?: Record<string, unknown>;
  /** Content-Length of the request when the client sent one (RLS sees it as metadata.contentLength). */
  declaredLength?: number;
  /** Stops reading the request: unpipes the parser so the rest of the body is discarded. */
  abandon(): void;
}

const MAX_USER_METADATA = 1024 * 1024;
// A Content-Type header Fastify can parse: type/subtype and optional parameters, no control characters.
const CONTENT_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;.*)?$/;

export function declaredLength(req: IncomingMessage): number | undefined {
  const n = Number(req.headers['content-length']);
  return req.headers['content-length'] !== undefined && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** User metadata sent as JSON text; anything else is ignored, as storage-api ignores it. */
export function parseJson(text: string | null | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The upload in the request, checked as storage-api checks it: the type against the bucket's
 * allowed types (`checkMime`), then a raw body's declared length against the limit.
 */
export async function fileUploadFromRequest(
  req: IncomingMessage,
  maxFileSize: number,
  checkMime: (mime: string) => void,
): Promise<FileUpload> {
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !CONTENT_TYPE.test(contentType)) throw errors.invalidContentType();
  if (contentType?.startsWith('multipart/form-data')) {
    const file = await multipart(req);
    try {
      checkMime(file.mimeType);
    } catch (err) {
      file.abandon();
      throw err;
    }
    return file;
  }

  checkMime(contentType || 'application/octet-stream');
  // A raw body: storage-api refuses a declared length over the limit before reading anything.
  const length = declaredLength(req);
  if (length !== undefined && length > maxFileSize) throw errors.entityTooLarge();
  const metadataHeader = req.headers['x-metadata'];
  return {
    body: req,
    mimeType: contentType || 'application/octet-stream',
    cacheControl: (req.headers['cache-control'] as string | undefined) ?? 'no-cache',
    userMetadata:
      typeof metadataHeader === 'string'
        ? parseJson(Buffer.from(metadataHeader, 'base64').toString('utf8'))
        : undefined,
    declaredLength: length,
    abandon: () => req.resume(),
  };
}

function multipart(req: IncomingMessage): Promise<FileUpload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fields: 10, fieldSize: MAX_USER_METADATA + 1 } });
    } catch {
      return reject(errors.noContent());
    }
    const fields: Record<string, string> = {};
    let settled = false;
    const abandon = () => {
      req.unpipe(parser);
      req.resume();
    };
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      abandon();
      reject(err);
    };
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (_name, stream, info) => {
      if (settled) return stream.resume();
      settled = true;
      stream.pause();
      // A client that goes away mid-file: fail the write instead of waiting for bytes forever.
      req.once('close', () => {
        if (!req.complete) stream.destroy(new Error('Request stream closed before upload could complete'));
      });
      const metadata = fields.metadata ?? fields.userMetadata;
      if (metadata !== undefined && Buffer.byteLength(metadata) > MAX_USER_METADATA) {
        abandon();
        return reject(errors.entityTooLarge('user_metadata'));
      }
      resolve({
        body: stream,
        mimeType: fields.contentType || info.mimeType,
        cacheControl: fields.cacheControl ? `max-age=${fields.cacheControl}` : 'no-cache',
        userMetadata: metadata === undefined ? undefined : parseJson(metadata),
        declaredLength: declaredLength(req),
        abandon,
      });
    });
    parser.on('error', () => fail(errors.noContent()));
    parser.on('close', () => fail(errors.noContent()));
    req.on('error', () => fail(errors.noContent()));
    req.pipe(parser);
  });
}
