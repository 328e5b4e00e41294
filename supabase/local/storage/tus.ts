// Resumable uploads at /storage/v1/upload/resumable (TUS 1.0, what hosted recommends above 6 MB):
// @tus/server with its file store, wired as storage-api wires it (src/http/routes/tus): the
// Upload-Metadata names the object (bucketName, objectName, contentType, cacheControl,
// metadata), every request is allowed by the caller's INSERT (or upsert with x-upsert: true)
// permission as a rolled-back write, and the finished file becomes the object's new version.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { FileStore as TusFileStore } from '@tus/file-store';
import { Metadata, Server, type Upload } from '@tus/server';
import { type Caller, callerOf } from './caller.ts';
import type { StorageContext } from './context.ts';
import type { Scope } from './db.ts';
import { errors, StorageError } from './errors.ts';
import { isEmptyFolder, mustBeAllowedMime, mustBeValidBucketName, mustBeValidKey } from './limits.ts';
import { canUpload, findBucket, saveUpload } from './object.ts';
import { parseJson } from './upload.ts';

export const TUS_PATH = '/storage/v1/upload/resumable';
/** Unfinished resumable uploads, under the data dir; kept across restarts so they can resume. */
export const TUS_DIR = 'storage-tus';

type UploadMetadata = Record<string, string | null>;
type TusRequest = { headers: Headers; method: string; runtime?: { node?: { req: IncomingMessage } } };

export function createTus(ctx: StorageContext, apiUrl: string, dataDir: string) {
  // Who is calling, per Node request (the hooks get srvx's wrapper of it).
  const callers = new WeakMap<IncomingMessage, Caller>();
  const callerFor = (req: TusRequest) => {
    const node = req.runtime?.node?.req;
    const caller = node && callers.get(node);
    if (!caller) throw errors.internal();
    return caller;
  };
  const scope = (req: TusRequest, caller = callerFor(req)): Scope => ({
    caller,
    operation: `storage.tus.upload.${req.method === 'POST' ? 'create' : 'part'}`,
    method: req.method,
    path: TUS_PATH,
  });
  const directory = path.join(dataDir, TUS_DIR);
  const datastore = new TusFileStore({ directory });

  /** The object an upload is for, from its Upload-Metadata. */
  const target = (metadata: UploadMetadata | undefined) => {
    const bucket = metadata?.bucketName ?? '';
    const key = metadata?.objectName ?? '';
    mustBeValidBucketName(bucket);
    return { bucket, key };
  };
  const metadataOf = async (req: TusRequest, id: string): Promise<UploadMetadata | undefined> => {
    if (req.method !== 'POST') return (await datastore.getUpload(id)).metadata;
    try {
      return Metadata.parse(req.headers.get('upload-metadata') ?? undefined);
    } catch {
      throw errors.invalidParameter('upload-metadata');
    }
  };
  const limitOf = async (req: TusRequest, id: string | null) => {
    if (!id) return ctx.globalLimit;
    const { bucket } = target(await metadataOf(req, id));
    const b = await findBucket(ctx, scope(req), bucket);
    if (!b) throw errors.noSuchBucket();
    return b.file_size_limit === null ? ctx.globalLimit : Math.min(ctx.globalLimit, Number(b.file_size_limit));
  };

  const server = new Server({
    path: TUS_PATH,
    datastore,
    namingFunction: () => randomUUID(),
    generateUrl: (_req, { id }) => `${apiUrl}${TUS_PATH}/${id}`,
    getFileIdFromRequest: (req) => /\/([^/]+)\/?$/.exec(new URL(req.url).pathname)?.[1],
    maxSize: (req, id) => limitOf(req as TusRequest, id),
    disableTerminationForFinishedUploads: true,
    // storage-api onIncomingRequest: every request of an upload needs the caller's permission.
    onIncomingRequest: async (rawReq, id) => {
      const req = rawReq as TusRequest;
      if (req.method === 'HEAD' || req.method === 'OPTIONS') return;
      const metadata = await metadataOf(req, id);
      const { bucket, key } = target(metadata);
      mustBeValidKey(key);
      const caller = callerFor(req);
      const upsert = req.runtime?.node?.req.headers['x-upsert'] === 'true';
      const userMetadata = parseJson(metadata?.metadata);
      const length = Number(req.headers.get('upload-length') ?? undefined);
      await canUpload(
        ctx,
        scope(req, caller),
        {
          bucket,
          key,
          owner: caller.owner,
          metadata: {
            mimetype: metadata?.contentType ?? undefined,
            contentLength: Number.isFinite(length) ? length : undefined,
          },
          userMetadata,
        },
        upsert,
      );
    },
    // storage-api onCreate: the bucket exists and takes the type; cacheControl becomes max-age.
    onUploadCreate: async (rawReq, upload: Upload) => {
      const req = rawReq as TusRequest;
      const metadata = { ...upload.metadata };
      const { bucket, key } = target(metadata);
      const b = await findBucket(ctx, scope(req), bucket);
      if (!b) throw errors.noSuchBucket();
      metadata.cacheControl = /^-?\d+$/.test(metadata.cacheControl ?? '')
        ? `max-age=${metadata.cacheControl}`
        : 'no-cache';
      if (metadata.contentType && !isEmptyFolder(key)) mustBeAllowedMime(metadata.contentType, b.allowed_mime_types);
      return { metadata };
    },
    onUploadFinish: async (rawReq, upload: Upload) => {
      const req = rawReq as TusRequest;
      const caller = callerFor(req);
      const metadata = upload.metadata ?? {};
      const { bucket, key } = target(metadata);
      const file = path.join(directory, upload.id);
      const md5 = createHash('md5');
      for await (const chunk of createReadStream(file)) md5.update(chunk as Buffer);
      const userMetadata = parseJson(metadata.metadata);
      const upsert = req.runtime?.node?.req.headers['x-upsert'] === 'true';
      await saveUpload(
        ctx,
        scope(req, caller),
        { tmp: file, size: upload.size ?? upload.offset, eTag: `"${md5.digest('hex')}"` },
        {
          bucket,
          key,
          owner: caller.owner,
          mimeType: metadata.contentType || 'application/octet-stream',
          cacheControl: metadata.cacheControl ?? 'no-cache',
          userMetadata,
        },
        upsert,
      );
      await datastore.configstore.delete(upload.id);
      return {};
    },
    // storage-api getTusError: the storage error's status and message, as TUS sends errors.
    onResponseError: (_req, err) => {
      if (err instanceof StorageError) return { status_code: err.statusCode, body: err.message };
      if (err instanceof Error && !('status_code' in err)) {
        ctx.log(`tus: ${err.stack ?? err}`);
        return { status_code: 500, body: 'Internal Server Error' };
      }
      return undefined;
    },
  });

  return async (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    callers.set(req, await callerOf(req, ctx.signer));
    await server.handle(req, res);
  };
}
