// Signed URLs (storage-api src/storage/object.ts sign*/verifyObjectSignature; reference A2.6, A2.7, A4):
// HS256 JWTs signed with the project's JWT secret, `url` = "<bucket>/<key>", scoped to download or
// upload so one can't be replayed as the other. Creating one needs the caller's SELECT (download) or
// INSERT (upload) permission; using one needs no other credential.
import { SignJWT } from 'jose';
import { SERVICE } from './caller.ts';
import { type Handler, need, readJson, type StorageContext, type StorageRequest } from './context.ts';
import { errors, sendJson } from './errors.ts';
import { mustBeValidBucketName, mustBeValidKey } from './limits.ts';
import { canUpload, findObject, uploadObject } from './object.ts';
import { sendObject } from './render.ts';
import { parseTransform, segments } from './transform.ts';

const MAX_PATHS = 1000;

async function sign(ctx: StorageContext, claims: Record<string, unknown>, expiresIn: number) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(`${expiresIn}s`)
    .sign(new TextEncoder().encode(ctx.jwtSecret));
}

/** storage-api assertValidNumericJWTExpiration: whole seconds, at least 1. */
function expiresIn(body: Record<string, unknown>): number {
  const v = body.expiresIn;
  if (v === undefined) throw errors.validation("body must have required property 'expiresIn'");
  if (typeof v !== 'number' || !Number.isFinite(v)) throw errors.validation('body/expiresIn must be integer');
  if (v < 1) throw errors.validation('body/expiresIn must be >= 1');
  const seconds = Math.floor(v);
  if (!Number.isSafeInteger(seconds) || seconds > Math.floor(Number.MAX_SAFE_INTEGER / 1000) - Date.now() / 1000)
    throw errors.invalidParameter('expiresIn');
  return seconds;
}

type Scope = 'download' | 'upload';

/** storage-api verifyObjectSignature: signature and expiry, scope, then the URL the token was made for. */
export async function verifyToken(ctx: StorageContext, r: StorageRequest, scope: Scope) {
  const token = r.url.searchParams.get('token');
  if (token === null) throw errors.validation("querystring must have required property 'token'");
  let payload: Record<string, unknown>;
  try {
    payload = (await ctx.signer.verify(token)) as Record<string, unknown>;
  } catch (err) {
    throw errors.invalidJwt((err as Error).message);
  }
  const scoped =
    payload.scope === scope ||
    (payload.scope === undefined && (scope === 'upload' ? 'upsert' in payload : !('upsert' in payload)));
  if (!scoped) throw errors.invalidSignature(`Token is not scoped for ${scope}`);
  if (payload.url !== `${r.params.bucket}/${r.params['*']}`) throw errors.invalidSignature();
  if (typeof payload.exp === 'number' && payload.exp * 1000 < Date.now()) throw errors.expiredSignature();
  return payload;
}

/**
 * POST /object/sign/{bucket}/{key} {expiresIn, transform?}: a download URL for an object the caller
 * can SELECT. With image transformation on, a `transform` goes into the token (its segments as
 * signed, and the format) and the URL is /render/image/sign/…; with it off, `transform` is ignored.
 */
export const signUrl: Handler = async (ctx, r) => {
  const { bucket, '*': key } = r.params;
  const body = await readJson(r.req);
  const seconds = expiresIn(body);
  const transform =
    body.transform === undefined ? {} : parseTransform(need.object(body, 'transform'), 'body/transform', false);
  mustBeValidBucketName(bucket);
  await findObject(ctx, r.scope(), bucket, key);
  const url = `${bucket}/${key}`;
  const transformations = ctx.imageTransformation ? segments(transform, true).join(',') : '';
  // storage-api signObjectUrl drops empty claims, then sets url and scope last.
  const claims: Record<string, unknown> = {};
  if (transformations) claims.transformations = transformations;
  if (ctx.imageTransformation && transform.format) claims.format = transform.format;
  const token = await sign(ctx, { ...claims, url, scope: 'download' }, seconds);
  const base = transformations ? 'render/image' : 'object';
  sendJson(r.res, 200, { signedURL: `/${base}/sign/${url}?token=${token}` });
};

/** POST /object/sign/{bucket} {expiresIn, paths}: one entry per path, an error where the caller can't SELECT it. */
export const signUrls: Handler = async (ctx, r) => {
  const bucket = r.params.bucket;
  const body = await readJson(r.req);
  const seconds = expiresIn(body);
  const paths = body.paths;
  if (paths === undefined) throw errors.validation("body must have required property 'paths'");
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string'))
    throw errors.validation('body/paths must be array');
  if (paths.length > MAX_PATHS) throw errors.validation(`body/paths must NOT have more than ${MAX_PATHS} items`);
  mustBeValidBucketName(bucket);
  const { rows } = await ctx.db.tx(r.scope(), (c) =>
    c.query<{ name: string }>('select name from storage.objects where bucket_id = $1 and name = any($2::text[])', [
      bucket,
      paths,
    ]),
  );
  const visible = new Set(rows.map((o) => o.name));
  const out = await Promise.all(
    (paths as string[]).map(async (path) => {
      if (!visible.has(path))
        return { error: 'Either the object does not exist or you do not have access to it', path, signedURL: null };
      const url = `${bucket}/${path}`;
      const token = await sign(ctx, { url, scope: 'download' }, seconds);
      return { error: null, path, signedURL: `/object/sign/${url}?token=${token}` };
    }),
  );
  sendJson(r.res, 200, out);
};

/** GET/HEAD /object/sign/{bucket}/{key}?token=…: the object, read as the service role, Expires = the token's exp. */
export const getSignedObject: Handler = async (ctx, r) => {
  const payload = await verifyToken(ctx, r, 'download');
  const row = await findObject(ctx, r.scope(SERVICE), r.params.bucket, r.params['*']);
  await sendObject(ctx.files, r.req, r.res, row, {
    download: r.url.searchParams.get('download'),
    expires: new Date((payload.exp as number) * 1000).toUTCString(),
  });
};

/**
 * POST /object/upload/sign/{bucket}/{key}: an upload URL for a key the caller may INSERT (or upsert,
 * with x-upsert: true). It lasts the server's time, not the client's.
 */
export const signUploadUrl: Handler = async (ctx, r) => {
  const { bucket, '*': key } = r.params;
  await readJson(r.req);
  const upsert = r.req.headers['x-upsert'] === 'true';
  mustBeValidBucketName(bucket);
  mustBeValidKey(key);
  const owner = r.caller.owner;
  const length = Number(r.req.headers['content-length']);
  const metadata = {
    mimetype: r.req.headers['content-type'],
    contentLength: Number.isFinite(length) ? length : undefined,
  };
  await canUpload(ctx, r.scope(), { bucket, key, owner, metadata }, upsert);
  const url = `${bucket}/${key}`;
  const token = await sign(ctx, { owner, url, upsert, scope: 'upload' }, ctx.uploadUrlExpiry);
  sendJson(r.res, 200, { url: `/object/upload/sign/${url}?token=${token}`, token });
};

/** PUT /object/upload/sign/{bucket}/{key}?token=…: an upload with the token's owner and upsert, as the service role. */
export const uploadToSignedUrl: Handler = async (ctx, r) => {
  const payload = await verifyToken(ctx, r, 'upload');
  const { bucket, '*': key } = r.params;
  const out = await uploadObject(ctx, r, {
    bucket,
    key,
    owner: typeof payload.owner === 'string' ? payload.owner : undefined,
    upsert: payload.upsert === true,
    permission: SERVICE,
  });
  sendJson(r.res, 200, { Key: out.key });
};
