// Image transformations (storage-api src/http/schemas/transformations.ts, src/storage/renderer/image.ts;
// reference fidelity §5.2–5.3). storage-api hands the work to imgproxy; here sharp (libvips, as imgproxy
// uses) does it, following imgproxy's rules: sizes clamped to 1–2000 (0 = not set), no enlargement,
// `cover` = imgproxy fill (scale to cover, crop at the gravity), `contain` = fit (scale to fit
// inside), `fill` = force (both sizes, aspect ignored), quality 80 unless given, WebP when the client
// accepts it unless `format=origin`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Sharp } from 'sharp';
import { errors, sendError } from './errors.ts';
import type { FileStore } from './files.ts';
import { contentDisposition, type ObjectRow } from './render.ts';

const RESIZE = ['cover', 'contain', 'fill'] as const;
const FORMAT = ['origin', 'avif', 'webp'] as const;
const GRAVITY = ['no', 'so', 'ea', 'we', 'noea', 'nowe', 'soea', 'sowe', 'ce', 'sm', 'fp'] as const;

export interface Transform {
  width?: number;
  height?: number;
  resize?: (typeof RESIZE)[number];
  format?: (typeof FORMAT)[number];
  quality?: number;
  gravity?: (typeof GRAVITY)[number];
  x_offset?: number;
  y_offset?: number;
}

// storage-api IMAGE_TRANSFORMATION_LIMIT_MIN_SIZE / _MAX_SIZE, imgproxy IMGPROXY_QUALITY, and the
// source limits Supabase documents for hosted transformations (25 MB, 50 megapixels).
const MIN_SIZE = 1;
const MAX_SIZE = 2000;
const DEFAULT_QUALITY = 80;
const MAX_SOURCE_BYTES = 25 * 1024 * 1024;
const MAX_SOURCE_PIXELS = 50_000_000;

const clamp = (n: number) => Math.min(Math.max(n, MIN_SIZE), MAX_SIZE);

/**
 * transformationOptionsSchema as Fastify validates it, with its messages (`where` is `querystring`
 * or `body/transform`). Query strings are coerced as Ajv coerces them.
 */
export function parseTransform(input: Record<string, unknown>, where: string, fromQuery: boolean): Transform {
  const out: Transform = {};
  const num = (
    key: 'width' | 'height' | 'quality' | 'x_offset' | 'y_offset',
    integer: boolean,
    min?: number,
    max?: number,
  ) => {
    let v = input[key];
    if (v === undefined) return;
    if (fromQuery && typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) v = Number(v);
    const type = integer ? 'integer' : 'number';
    if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)))
      throw errors.validation(`${where}/${key} must be ${type}`);
    if (min !== undefined && v < min) throw errors.validation(`${where}/${key} must be >= ${min}`);
    if (max !== undefined && v > max) throw errors.validation(`${where}/${key} must be <= ${max}`);
    out[key] = v;
  };
  const oneOf = <K extends 'resize' | 'format' | 'gravity'>(key: K, allowed: readonly string[]) => {
    const v = input[key];
    if (v === undefined) return;
    if (typeof v !== 'string') throw errors.validation(`${where}/${key} must be string`);
    if (!allowed.includes(v)) throw errors.validation(`${where}/${key} must be equal to one of the allowed values`);
    out[key] = v as Transform[K];
  };
  // In the schema's order: Ajv reports the first property that fails.
  num('height', true, 0);
  num('width', true, 0);
  oneOf('resize', RESIZE);
  oneOf('format', FORMAT);
  num('quality', true, 20, 100);
  oneOf('gravity', GRAVITY);
  num('x_offset', false);
  num('y_offset', false);
  if (out.gravity === 'fp') {
    for (const key of ['x_offset', 'y_offset'] as const) {
      if (out[key] === undefined)
        throw errors.validation(`${where} must have required property '${key}', ${where} must match "then" schema`);
      if (out[key]! < 0) throw errors.validation(`${where}/${key} must be >= 0, ${where} must match "then" schema`);
      if (out[key]! > 1) throw errors.validation(`${where}/${key} must be <= 1, ${where} must match "then" schema`);
    }
  }
  return out;
}

const resizingType = (r: Transform['resize']) => (r === 'contain' ? 'fit' : r === 'fill' ? 'force' : 'fill');

/**
 * ImageRenderer.applyTransformation: the segments a request is rendered with (X-Transformations),
 * or, with `keepOriginal`, as a signed URL's token keeps them (`resize:<as given>`).
 */
export function segments(t: Transform, keepOriginal = false): string[] {
  const out: string[] = [];
  if (t.height) out.push(`height:${clamp(t.height)}`);
  if (t.width) out.push(`width:${clamp(t.width)}`);
  if (t.width || t.height) out.push(keepOriginal ? `resize:${t.resize}` : `resizing_type:${resizingType(t.resize)}`);
  if (t.quality) out.push(`quality:${t.quality}`);
  if (t.format && t.format !== 'origin') out.push(`format:${t.format}`);
  if (t.gravity === 'sm') out.push('gravity:sm');
  else if (t.gravity === 'fp') out.push(`gravity:fp:${t.x_offset}:${t.y_offset}`);
  else if (t.gravity)
    out.push(
      t.x_offset === undefined && t.y_offset === undefined
        ? `gravity:${t.gravity}`
        : `gravity:${t.gravity}:${t.x_offset ?? 0}:${t.y_offset ?? 0}`,
    );
  return out;
}

/** ImageRenderer.setTransformationsFromString: a signed token's `transformations` back to options. */
export function fromSegments(text: string): Transform {
  const t: Transform = {};
  for (const part of text.split(',')) {
    const [name, value, x, y] = part.split(':');
    if (!value) continue;
    if (name === 'height' || name === 'width' || name === 'quality') t[name] = Number.parseInt(value, 10);
    else if (name === 'resize')
      t.resize = value as Transform['resize']; // "undefined" falls back to cover
    else if (name === 'format') t.format = value as Transform['format'];
    else if (name === 'gravity') {
      t.gravity = value as Transform['gravity'];
      if (x && Number.isFinite(Number.parseFloat(x))) t.x_offset = Number.parseFloat(x);
      if (y && Number.isFinite(Number.parseFloat(y))) t.y_offset = Number.parseFloat(y);
    }
  }
  return t;
}

export interface Geometry {
  /** The size the whole image is scaled to. */
  scaled: { width: number; height: number };
  /** Then cut to this (imgproxy fill), else the scaled size. */
  crop?: { width: number; height: number };
}

/**
 * imgproxy's arithmetic (processing/prepare.go calcScale): a missing size follows the other's
 * scale (but force keeps it), fit takes the larger shrink, fill the smaller; without enlargement a
 * shrink below 1 is undone on both axes and the crop shrinks with it, so the crop keeps the asked
 * aspect ratio.
 */
export function geometry(srcW: number, srcH: number, t: Transform): Geometry | undefined {
  const w = t.width ? clamp(t.width) : 0;
  const h = t.height ? clamp(t.height) : 0;
  if (!w && !h) return undefined;
  const type = resizingType(t.resize);
  let ws = w ? srcW / w : 1;
  let hs = h ? srcH / h : 1;
  if (!w && type !== 'force') ws = hs;
  else if (!h && type !== 'force') hs = ws;
  else if (type === 'fit') ws = hs = Math.max(ws, hs);
  else if (type === 'fill') ws = hs = Math.min(ws, hs);
  const undo = Math.min(ws, hs, 1);
  ws /= undo;
  hs /= undo;
  const scaled = { width: Math.max(1, Math.round(srcW / ws)), height: Math.max(1, Math.round(srcH / hs)) };
  if (type !== 'fill') return { scaled };
  const crop = {
    width: w ? Math.min(scaled.width, Math.max(1, Math.round(w * undo))) : scaled.width,
    height: h ? Math.min(scaled.height, Math.max(1, Math.round(h * undo))) : scaled.height,
  };
  return { scaled, crop };
}

/** imgproxy calcPosition: where a crop of `inner` sits in `outer` for the gravity and its offsets. */
export function cropOrigin(
  outer: { width: number; height: number },
  inner: { width: number; height: number },
  t: Transform,
): { left: number; top: number } {
  const g = t.gravity ?? 'ce';
  const px = (v: number | undefined, size: number) => (v === undefined ? 0 : Math.abs(v) < 1 ? v * size : v);
  let left: number;
  let top: number;
  if (g === 'fp') {
    left = Math.round(outer.width * (t.x_offset ?? 0.5) - inner.width / 2);
    top = Math.round(outer.height * (t.y_offset ?? 0.5) - inner.height / 2);
  } else {
    const dx = px(t.x_offset, outer.width);
    const dy = px(t.y_offset, outer.height);
    left = g.endsWith('ea')
      ? outer.width - inner.width - dx
      : g.endsWith('we')
        ? dx
        : (outer.width - inner.width + 1) / 2 + dx;
    top = g.startsWith('so')
      ? outer.height - inner.height - dy
      : g.startsWith('no')
        ? dy
        : (outer.height - inner.height + 1) / 2 + dy;
  }
  const within = (v: number, room: number) => Math.min(Math.max(Math.floor(v), 0), room);
  return { left: within(left, outer.width - inner.width), top: within(top, outer.height - inner.height) };
}

// What imgproxy writes a source format as when it keeps it (`origin`); others become JPEG or PNG.
const KEEPS = new Set(['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff']);
const MIME: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
  tiff: 'image/tiff',
};

/** The output format: the asked one; else WebP for a client that accepts it (imgproxy's WebP detection); else the source's. */
function outputFormat(t: Transform, source: string, hasAlpha: boolean, accept: string | undefined): string {
  if (t.format === 'webp' || t.format === 'avif') return t.format;
  if (t.format !== 'origin' && accept?.includes('image/webp')) return 'webp';
  if (KEEPS.has(source)) return source;
  return hasAlpha ? 'png' : 'jpeg';
}

const unsupported = () => errors.imageProcessing('The source image is invalid or unsupported for rendering');

let sharpModule: Promise<typeof import('sharp')> | undefined;
/** sharp (and libvips) load on the first render, so a stack that never transforms an image never pays for them. */
function loadSharp() {
  sharpModule ??= import('sharp').then((m) => {
    m.default.cache(false); // no libvips operation cache held between requests
    return m;
  });
  return sharpModule;
}

type SharpModule = typeof import('sharp').default;
type Metadata = Awaited<ReturnType<Sharp['metadata']>>;

/** Rotate by EXIF (as imgproxy, first), scale, crop at the gravity, encode: the bytes and their format. */
async function render(sharp: SharpModule, source: Sharp, meta: Metadata, t: Transform, accept: string | undefined) {
  let image = source.rotate();
  const upright = meta.autoOrient ?? { width: meta.width, height: meta.height };
  const geo = geometry(upright.width, upright.height, t);
  if (geo) {
    image = image.resize(geo.scaled.width, geo.scaled.height, { fit: 'fill' });
    if (geo.crop && (geo.crop.width < geo.scaled.width || geo.crop.height < geo.scaled.height)) {
      const scaled = sharp(await image.toBuffer());
      image =
        t.gravity === 'sm'
          ? scaled.resize(geo.crop.width, geo.crop.height, { fit: 'cover', position: sharp.strategy.attention })
          : scaled.extract({ ...cropOrigin(geo.scaled, geo.crop, t), ...geo.crop });
    }
  }
  // sharp names AVIF and HEIC both heif; AVIF is the AV1-compressed one.
  const kind = meta.format === 'heif' && meta.compression === 'av1' ? 'avif' : meta.format;
  const format = outputFormat(t, kind, !!meta.hasAlpha, accept);
  const body = await image.toFormat(format as 'jpeg', { quality: t.quality ?? DEFAULT_QUALITY }).toBuffer();
  return { body, format };
}

/** The transformed image as storage-api's ImageRenderer answers it; `expires` for signed URLs. */
export async function sendTransformed(
  files: FileStore,
  req: IncomingMessage,
  res: ServerResponse,
  row: ObjectRow,
  t: Transform,
  opts: { download: string | null; expires?: string },
): Promise<void> {
  const st = row.version ? await files.stat(row.bucket_id, row.name, row.version) : undefined;
  if (!st) return sendError(res, errors.fileMissing(), { 'cache-control': 'no-store' });
  if (st.size > MAX_SOURCE_BYTES) throw errors.imageProcessing('The source image file is too large to process');
  const { default: sharp } = await loadSharp();
  let image: Sharp;
  let meta: Metadata;
  try {
    image = sharp(files.file(row.bucket_id, row.name, row.version!), { limitInputPixels: false, animated: false });
    meta = await image.metadata();
  } catch {
    throw unsupported();
  }
  if (!meta.width || !meta.height || !meta.format) throw unsupported();
  if (meta.width * meta.height > MAX_SOURCE_PIXELS)
    throw errors.imageProcessing('The source image resolution is too large to process');
  // sharp decodes lazily: a file whose header reads but whose data is broken fails here, as imgproxy's
  // "Broken or unsupported image".
  let body: Buffer;
  let format: string;
  try {
    ({ body, format } = await render(sharp, image, meta, t, req.headers.accept));
  } catch {
    throw unsupported();
  }
  const md = row.metadata ?? {};
  const applied = segments(t);
  res.writeHead(200, {
    'accept-ranges': 'bytes',
    'content-type': MIME[format] ?? 'application/octet-stream',
    etag: md.eTag ?? '',
    'x-robots-tag': 'none',
    'content-length': String(body.length),
    ...(opts.expires ? { expires: opts.expires } : { 'cache-control': md.cacheControl ?? 'no-cache' }),
    ...(applied.length ? { 'x-transformations': applied.join(',') } : {}),
    ...contentDisposition(opts.download),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
