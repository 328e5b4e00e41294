// The local Storage service at /storage/v1: storage-api's REST routes over the storage schema, with
// files on disk under the data dir (docs/reference/storage-functions.md A0–A4). Routes are tried in
// order, static segments (authenticated, public, sign, info, list, …) before /object/{bucket}/….
import { randomUUID } from 'node:crypto';
import { cp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { signer as makeSigner } from '../auth/jwt.ts';
import { createPool, isConnectionLost } from '../connections.ts';
import type { ProjectConfig } from '../config.ts';
import type { Service, StackContext } from '../service.ts';
import { createBucket, deleteBucket, emptyBucket, getBucket, listBuckets, updateBucket } from './bucket.ts';
import { type Caller, callerOf, NOBODY } from './caller.ts';
import type { Handler, StorageContext, StorageRequest } from './context.ts';
import { StorageDb } from './db.ts';
import { errors, StorageError, sendError } from './errors.ts';
import { FileStore } from './files.ts';
import {
  copyObject,
  getObject,
  getObjectInfo,
  getPublicObject,
  getPublicObjectInfo,
  moveObject,
  putObject,
  removeObject,
  removeObjects,
} from './object.ts';
import { listObjects, listObjectsV2 } from './list.ts';
import { renderAuthenticatedImage, renderPublicImage, renderSignedImage } from './render-image.ts';
import { seedBuckets } from './seed.ts';
import { getSignedObject, signUploadUrl, signUrl, signUrls, uploadToSignedUrl } from './signed.ts';
import { createTus, TUS_DIR } from './tus.ts';

/** How a route reads the JWT: required, optional (a bad one makes an anonymous caller) or not at all. */
type Auth = 'jwt' | 'optional' | 'none';

interface Route {
  methods: string[];
  pattern: RegExp;
  names: string[];
  auth: Auth;
  operation: string;
  handler: Handler;
}

function route(methods: string, path: string, auth: Auth, operation: string, handler: Handler): Route {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((part) => {
      if (part === '*') return names.push('*') && '(.*)';
      if (part.startsWith(':')) return names.push(part.slice(1)) && '([^/]+)';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { methods: methods.split(','), pattern: new RegExp(`^${source}/?$`), names, auth, operation, handler };
}

// storage-api's ROUTE_OPERATIONS names, readable in policies through storage.operation().
const ROUTES: Route[] = [
  route('GET', '/bucket', 'jwt', 'storage.bucket.list', listBuckets),
  route('POST', '/bucket', 'jwt', 'storage.bucket.create', createBucket),
  route('POST', '/bucket/:bucket/empty', 'jwt', 'storage.bucket.empty', emptyBucket),
  route('GET', '/bucket/:bucket', 'jwt', 'storage.bucket.get', getBucket),
  route('PUT', '/bucket/:bucket', 'jwt', 'storage.bucket.update', updateBucket),
  route('DELETE', '/bucket/:bucket', 'jwt', 'storage.bucket.delete', deleteBucket),

  route(
    'GET,HEAD',
    '/render/image/authenticated/:bucket/*',
    'jwt',
    'storage.render.image_authenticated',
    renderAuthenticatedImage,
  ),
  route('GET,HEAD', '/render/image/public/:bucket/*', 'none', 'storage.render.image_public', renderPublicImage),
  route('GET,HEAD', '/render/image/sign/:bucket/*', 'none', 'storage.render.image_sign', renderSignedImage),

  route('POST', '/object/list/:bucket', 'jwt', 'storage.object.list', listObjects),
  route('POST', '/object/list-v2/:bucket', 'jwt', 'storage.object.list_v2', listObjectsV2),
  route('POST', '/object/move', 'jwt', 'storage.object.move', moveObject),
  route('POST', '/object/copy', 'jwt', 'storage.object.copy', copyObject),
  route('POST', '/object/upload/sign/:bucket/*', 'jwt', 'storage.object.sign_upload_url', signUploadUrl),
  route('PUT', '/object/upload/sign/:bucket/*', 'none', 'storage.object.upload_signed', uploadToSignedUrl),
  route('GET,HEAD', '/object/sign/:bucket/*', 'none', 'storage.object.get_signed', getSignedObject),
  route('POST', '/object/sign/:bucket/*', 'jwt', 'storage.object.sign', signUrl),
  route('POST', '/object/sign/:bucket', 'jwt', 'storage.object.sign_many', signUrls),
  route('GET,HEAD', '/object/public/:bucket/*', 'none', 'storage.object.get_public', getPublicObject),
  route('GET', '/object/info/public/:bucket/*', 'none', 'storage.object.info_public', getPublicObjectInfo),
  route('GET', '/object/info/authenticated/:bucket/*', 'jwt', 'object.get_authenticated_info', getObjectInfo),
  route('GET', '/object/info/:bucket/*', 'optional', 'object.get_authenticated_info', getObjectInfo),
  route('GET,HEAD', '/object/authenticated/:bucket/*', 'jwt', 'storage.object.get_authenticated', getObject),
  route('GET,HEAD', '/object/:bucket/*', 'optional', 'storage.object.get_authenticated', getObject),
  route('POST', '/object/:bucket/*', 'jwt', 'storage.object.upload', putObject),
  route('PUT', '/object/:bucket/*', 'jwt', 'storage.object.upload_update', putObject),
  route('DELETE', '/object/:bucket/*', 'jwt', 'storage.object.delete', removeObject),
  route('DELETE', '/object/:bucket', 'jwt', 'storage.object.delete_many', removeObjects),
];

function match(method: string, pathname: string) {
  for (const r of ROUTES) {
    if (!r.methods.includes(method)) continue;
    const m = r.pattern.exec(pathname);
    if (!m) continue;
    const params: Record<string, string> = {};
    try {
      r.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]);
      });
    } catch {
      throw errors.invalidRequest(`Invalid path: ${pathname}`);
    }
    return { route: r, params };
  }
  return undefined;
}

/** Seconds a signed upload URL lasts: the CLI runs storage-api with SIGNED_UPLOAD_URL_EXPIRATION_TIME=7200. */
const UPLOAD_URL_EXPIRY = 7200;

/**
 * After the database was recreated its rows are gone, so the files go too; on a running stack
 * (`npm run stack -- reset`) the config's buckets are declared again, as `supabase db reset` does.
 */
export async function resetStorage(dataDir: string, running?: { dbUrl: string; config: ProjectConfig }) {
  const files = new FileStore(dataDir);
  await rm(files.root, { recursive: true, force: true });
  await rm(path.join(dataDir, TUS_DIR), { recursive: true, force: true });
  await files.init();
  if (!running) return;
  const pool = createPool({
    connectionString: running.dbUrl.replace('//postgres:', '//supabase_storage_admin:'),
    max: 2,
  });
  try {
    await seedBuckets(
      { db: new StorageDb(pool), files, globalLimit: running.config.storage.fileSizeLimit },
      running.config.storage.buckets,
    );
  } finally {
    await pool.end();
  }
}

/** A data dir whose database is a copy of a template's (startStack's `template`) gets the files its objects name. */
export async function copyStorage(templateDir: string, dataDir: string) {
  const from = new FileStore(templateDir).root;
  if (existsSync(from)) await cp(from, new FileStore(dataDir).root, { recursive: true });
}

export async function createStorageService(stack: StackContext): Promise<Service> {
  const pool = createPool({ connectionString: stack.dbUrlFor('supabase_storage_admin'), max: 10 });
  stack.onStop(() => pool.end());
  const ctx: StorageContext = {
    db: new StorageDb(pool),
    files: new FileStore(stack.dataDir),
    signer: makeSigner(stack.keys.jwtSecret, stack.signingKeys),
    jwtSecret: stack.keys.jwtSecret,
    globalLimit: stack.config.storage.fileSizeLimit,
    uploadUrlExpiry: UPLOAD_URL_EXPIRY,
    imageTransformation: stack.config.storage.imageTransformation,
    log: (m) => stack.log('storage', m),
  };
  await ctx.files.init();
  await seedBuckets(ctx, stack.config.storage.buckets);
  const tus = createTus(ctx, stack.apiUrl, stack.dataDir);

  return {
    name: 'storage',
    async handle(req, res, path) {
      const url = new URL(path, 'http://storage');
      const method = req.method ?? 'GET';
      try {
        if (/^\/upload\/resumable(\/|$)/.test(url.pathname)) return await tus(req, res);
        const found = match(method, url.pathname);
        // Without [storage.image_transformation] storage-api registers no /render routes.
        const off = !ctx.imageTransformation && found?.route.operation.startsWith('storage.render.');
        if (!found || off) throw errors.routeNotFound(method, path);
        const { route: r, params } = found;
        const caller: Caller = r.auth === 'none' ? NOBODY : await callerOf(req, ctx.signer, r.auth === 'optional');
        const request: StorageRequest = {
          req,
          res,
          url,
          params,
          caller,
          operation: r.operation,
          scope: (as = caller) => ({ caller: as, operation: r.operation, method, path: url.pathname }),
        };
        await r.handler(ctx, request);
      } catch (err) {
        if (res.headersSent || (req.destroyed && !req.complete)) return void res.destroy(); // the client is gone
        if (err instanceof StorageError) return sendError(res, err);
        const id = randomUUID();
        // storage-api renders what it can't name (a lost database connection too) as InternalError.
        const why = isConnectionLost(err) ? `database unavailable: ${(err as Error).message}` : (err as Error).stack;
        ctx.log(`${method} ${url.pathname} failed (${id}): ${why ?? err}`);
        sendError(res, errors.internal());
      }
    },
  };
}
