// /render/image/{authenticated,public,sign}/{bucket}/{key} (storage-api src/http/routes/render/*):
// an object's image transformed as the query (or, signed, the token) says. Served only when
// config.toml has `[storage.image_transformation] enabled = true`; otherwise storage-api doesn't
// register them (IMAGE_TRANSFORMATION_ENABLED, as the CLI sets it) and they answer its 404
// route-not-found (index.ts).
import { SERVICE } from './caller.ts';
import type { Handler, StorageContext, StorageRequest } from './context.ts';
import { errors } from './errors.ts';
import { mustBeValidBucketName } from './limits.ts';
import { findBucket, findObject } from './object.ts';
import { verifyToken } from './signed.ts';
import { fromSegments, parseTransform, sendTransformed, type Transform } from './transform.ts';

const query = (r: StorageRequest) => parseTransform(Object.fromEntries(r.url.searchParams), 'querystring', true);

const send = (
  ctx: StorageContext,
  r: StorageRequest,
  row: Awaited<ReturnType<typeof findObject>>,
  t: Transform,
  expires?: string,
) => sendTransformed(ctx.files, r.req, r.res, row, t, { download: r.url.searchParams.get('download'), expires });

/** GET /render/image/authenticated/{bucket}/{key}: the object as the caller may read it (RLS). */
export const renderAuthenticatedImage: Handler = async (ctx, r) => {
  const t = query(r);
  const { bucket, '*': key } = r.params;
  mustBeValidBucketName(bucket);
  await send(ctx, r, await findObject(ctx, r.scope(), bucket, key), t);
};

/** GET /render/image/public/{bucket}/{key}: a public bucket's object, read as the service role. */
export const renderPublicImage: Handler = async (ctx, r) => {
  const t = query(r);
  const { bucket, '*': key } = r.params;
  mustBeValidBucketName(bucket);
  const b = await findBucket(ctx, r.scope(), bucket);
  if (!b?.public) throw errors.noSuchBucket();
  await send(ctx, r, await findObject(ctx, r.scope(SERVICE), bucket, key), t);
};

/** GET /render/image/sign/{bucket}/{key}?token=…: the token's transformations (the query's are not read). */
export const renderSignedImage: Handler = async (ctx, r) => {
  const payload = await verifyToken(ctx, r, 'download');
  const row = await findObject(ctx, r.scope(SERVICE), r.params.bucket, r.params['*']);
  const t = fromSegments(typeof payload.transformations === 'string' ? payload.transformations : '');
  await send(ctx, r, row, t, new Date((payload.exp as number) * 1000).toUTCString());
};
