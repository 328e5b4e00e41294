// Image transformations with `[storage.image_transformation] enabled = true`, called as a client
// calls them with supabase-js (download / getPublicUrl / createSignedUrl with `transform`) and
// with plain fetch where headers and errors matter; sizes, formats and errors as storage-api with
// imgproxy answers them (docs/reference/supabase-fidelity.md §5.2–5.3). The output is read back
// with sharp, as a client would look at the picture it got.
import type { SupabaseClient } from '@supabase/supabase-js';
import { decodeJwt } from 'jose';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';
import { clientFor, signInWithCode } from '../support/stack.ts';

const stack = stackFixture({
  fixture: 'storage-project',
  configure: (c) => {
    c.storage.imageTransformation = true;
  },
});
let service: SupabaseClient;
let alice: { c: SupabaseClient; id: string };
let bob: SupabaseClient;
let photo: string; // documents/<alice>/photo.png, 400 × 300, readable by alice only

/** A 400 × 300 picture: left half red, right half blue, so a crop shows which part was kept. */
const picture = (format: 'png' | 'jpeg') =>
  sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .composite([
      {
        input: { create: { width: 200, height: 300, channels: 3, background: { r: 0, g: 0, b: 255 } } },
        left: 200,
        top: 0,
      },
    ])
    [format]()
    .toBuffer();

const shape = async (body: ArrayBuffer | Blob) => {
  const buf = Buffer.from(body instanceof Blob ? await body.arrayBuffer() : body);
  const { width, height, format } = await sharp(buf).metadata();
  return { width, height, format };
};

/** GET under /storage/v1 with the anon key (and a token if given): status, headers, body. */
async function get(pathAndQuery: string, init: { token?: string; accept?: string } = {}) {
  const headers: Record<string, string> = { apikey: stack.anonKey };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.accept) headers.accept = init.accept;
  const res = await fetch(`${stack.apiUrl}/storage/v1${pathAndQuery}`, { headers });
  const body = await res.arrayBuffer();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body).toString());
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, body, json };
}

beforeAll(async () => {
  service = clientFor(stack, { key: stack.serviceRoleKey });
  const a = await signInWithCode(stack);
  alice = { c: a.c, id: a.session.user.id };
  bob = (await signInWithCode(stack)).c;
  photo = `${alice.id}/photo.png`;
  const png = await picture('png');
  expect((await alice.c.storage.from('documents').upload(photo, png, { contentType: 'image/png' })).error).toBeNull();
  expect(
    (await service.storage.from('avatars').upload('team/logo.png', png, { contentType: 'image/png' })).error,
  ).toBeNull();
  const jpeg = await picture('jpeg');
  expect(
    (await service.storage.from('archive').upload('photo.jpg', jpeg, { contentType: 'image/jpeg' })).error,
  ).toBeNull();
  const broken = jpeg.subarray(0, jpeg.length / 2); // its header reads, its data stops halfway
  expect(
    (await service.storage.from('archive').upload('broken.jpg', broken, { contentType: 'image/jpeg' })).error,
  ).toBeNull();
  const text = Buffer.from('not a picture');
  expect(
    (await service.storage.from('archive').upload('note.png', text, { contentType: 'image/png' })).error,
  ).toBeNull();
});

describe('download with transform (/render/image/authenticated)', () => {
  it('resizes as imgproxy does: cover crops, contain fits, fill stretches, one side keeps the ratio', async () => {
    const docs = alice.c.storage.from('documents');
    const sized = async (transform: Parameters<typeof docs.download>[1]) => {
      const { data, error } = await docs.download(photo, transform);
      expect(error).toBeNull();
      return shape(data!);
    };
    expect(await sized({ transform: { width: 100, height: 100 } })).toEqual({ width: 100, height: 100, format: 'png' });
    expect(await sized({ transform: { width: 100, height: 100, resize: 'contain' } })).toEqual({
      width: 100,
      height: 75,
      format: 'png',
    });
    expect(await sized({ transform: { width: 100, height: 100, resize: 'fill' } })).toEqual({
      width: 100,
      height: 100,
      format: 'png',
    });
    expect(await sized({ transform: { width: 200 } })).toEqual({ width: 200, height: 150, format: 'png' });
    // Never enlarged: a bigger size keeps the source's.
    expect(await sized({ transform: { width: 1000 } })).toEqual({ width: 400, height: 300, format: 'png' });
  });

  it('crops a cover from the centre, so both colours stay', async () => {
    const { data } = await alice.c.storage
      .from('documents')
      .download(photo, { transform: { width: 100, height: 100 } });
    const { data: pixels, info } = await sharp(Buffer.from(await data!.arrayBuffer()))
      .raw()
      .toBuffer({ resolveWithObject: true });
    const at = (x: number) => [...pixels.subarray(x * info.channels, x * info.channels + 3)];
    expect(at(5)).toEqual([255, 0, 0]);
    expect(at(95)).toEqual([0, 0, 255]);
  });

  it('crops at the gravity asked: west keeps more of the red half, east more of the blue', async () => {
    // 400 × 300 covered into 100 × 100: scaled to 133 × 100, then 100 columns of 133 kept.
    const path = `/render/image/authenticated/documents/${photo}`;
    const { data: session } = await alice.c.auth.getSession();
    const redColumns = async (gravity: string) => {
      const res = await get(`${path}?width=100&height=100&gravity=${gravity}`, {
        token: session.session!.access_token,
      });
      const { data: pixels, info } = await sharp(Buffer.from(res.body)).raw().toBuffer({ resolveWithObject: true });
      let red = 0;
      for (let x = 0; x < info.width; x++) if (pixels[x * info.channels]! > 127) red++;
      return red;
    };
    expect(await redColumns('we')).toBeGreaterThanOrEqual(65);
    expect(await redColumns('ce')).toBeGreaterThanOrEqual(48);
    expect(await redColumns('ce')).toBeLessThanOrEqual(52);
    expect(await redColumns('ea')).toBeLessThanOrEqual(35);
  });

  it('reads as the caller: another user gets NoSuchKey', async () => {
    const { data, error } = await bob.storage.from('documents').download(photo, { transform: { width: 50 } });
    expect(data).toBeNull();
    expect(error).toMatchObject({ name: 'StorageApiError', message: 'Object not found', status: 400 });
  });

  it('sends WebP to a client that accepts it, unless format=origin, with X-Transformations and the object’s ETag', async () => {
    const { data: session } = await alice.c.auth.getSession();
    const token = session.session!.access_token;
    const path = `/render/image/authenticated/documents/${photo}`;
    const webp = await get(`${path}?width=100`, { token, accept: 'image/avif,image/webp,*/*' });
    expect(webp.status).toBe(200);
    expect(webp.headers.get('content-type')).toBe('image/webp');
    expect(webp.headers.get('x-transformations')).toBe('width:100,resizing_type:fill');
    expect(await shape(webp.body)).toEqual({ width: 100, height: 75, format: 'webp' });
    const info = await alice.c.storage.from('documents').info(photo);
    expect(webp.headers.get('etag')).toBe(info.data?.etag);

    const origin = await get(`${path}?width=100&format=origin`, { token, accept: 'image/webp,*/*' });
    expect([origin.headers.get('content-type'), (await shape(origin.body)).format]).toEqual(['image/png', 'png']);
    const asked = await get(`${path}?format=webp`, { token });
    expect([asked.headers.get('x-transformations'), (await shape(asked.body)).format]).toEqual(['format:webp', 'webp']);
    const named = await get(`${path}?width=10&download=small.png`, { token });
    expect(named.headers.get('content-disposition')).toBe("attachment; filename=small.png; filename*=UTF-8''small.png");
  });

  it('clamps sizes to 2000 and encodes with the quality asked (80 unless given)', async () => {
    const path = '/render/image/authenticated/archive/photo.jpg';
    const big = await get(`${path}?width=5000&height=0`, { token: stack.serviceRoleKey });
    expect(big.headers.get('x-transformations')).toBe('width:2000,resizing_type:fill');
    const low = await get(`${path}?quality=20`, { token: stack.serviceRoleKey });
    const high = await get(`${path}?quality=100`, { token: stack.serviceRoleKey });
    const standard = await get(path, { token: stack.serviceRoleKey });
    expect(low.headers.get('x-transformations')).toBe('quality:20');
    expect(low.body.byteLength).toBeLessThan(standard.body.byteLength);
    expect(standard.body.byteLength).toBeLessThan(high.body.byteLength);
    expect(await shape(low.body)).toEqual({ width: 400, height: 300, format: 'jpeg' });
  });
});

describe('getPublicUrl with transform (/render/image/public)', () => {
  it('serves a public bucket’s picture to anyone, transformed; a private bucket is not found', async () => {
    const { data } = service.storage
      .from('avatars')
      .getPublicUrl('team/logo.png', { transform: { width: 40, height: 30 } });
    expect(data.publicUrl).toBe(
      `${stack.apiUrl}/storage/v1/render/image/public/avatars/team/logo.png?width=40&height=30`,
    );
    const res = await fetch(data.publicUrl);
    expect(res.status).toBe(200);
    expect(await shape(await res.arrayBuffer())).toEqual({ width: 40, height: 30, format: 'png' });

    const hidden = await get(`/render/image/public/documents/${photo}?width=40`);
    expect([hidden.status, hidden.json]).toEqual([
      400,
      { statusCode: '404', code: 'NoSuchBucket', error: 'Bucket not found', message: 'Bucket not found' },
    ]);
  });
});

describe('createSignedUrl with transform (/render/image/sign)', () => {
  it('signs the transformation into the token; the URL serves it to anyone and ignores query overrides', async () => {
    const { data, error } = await alice.c.storage
      .from('documents')
      .createSignedUrl(photo, 60, { transform: { width: 50, height: 50, resize: 'contain', format: 'origin' } });
    expect(error).toBeNull();
    const url = new URL(data!.signedUrl);
    expect(url.pathname).toBe(`/storage/v1/render/image/sign/documents/${photo}`);
    expect(decodeJwt(url.searchParams.get('token')!)).toMatchObject({
      url: `documents/${photo}`,
      scope: 'download',
      transformations: 'height:50,width:50,resize:contain',
      format: 'origin',
    });
    const res = await fetch(`${data!.signedUrl}&width=10`, { headers: { accept: 'image/webp' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('expires')).toBe(
      new Date((decodeJwt(url.searchParams.get('token')!).exp as number) * 1000).toUTCString(),
    );
    // storage-api's render route reads only `transformations`, not the `format` claim, so a client
    // that accepts WebP gets WebP even from a URL signed with format origin.
    expect(await shape(await res.arrayBuffer())).toEqual({ width: 50, height: 38, format: 'webp' });
    const plain = await fetch(data!.signedUrl);
    expect(await shape(await plain.arrayBuffer())).toEqual({ width: 50, height: 38, format: 'png' });
  });

  /** The archive's photo.jpg signed by the service role with `width: 60`: the URL and its token. */
  const signedPhoto = async () => {
    const { data, error } = await service.storage
      .from('archive')
      .createSignedUrl('photo.jpg', 60, { transform: { width: 60 } });
    expect(error).toBeNull();
    return { url: data!.signedUrl, token: new URL(data!.signedUrl).searchParams.get('token')! };
  };

  it('keeps `resize` as given, undefined included, as storage-api signs it', async () => {
    const { url, token } = await signedPhoto();
    expect(decodeJwt(token).transformations).toBe('width:60,resize:undefined');
    const res = await fetch(url);
    expect(await shape(await res.arrayBuffer())).toEqual({ width: 60, height: 45, format: 'jpeg' });
  });

  it('refuses a download token on the render route for another object, and a bad transform when signing', async () => {
    const { token } = await signedPhoto();
    const other = await get(`/render/image/sign/archive/note.png?token=${token}`);
    expect([other.status, other.json]).toEqual([
      400,
      { statusCode: '400', code: 'InvalidSignature', error: 'InvalidSignature', message: 'Invalid signature' },
    ]);
    const bad = await service.storage.from('archive').createSignedUrl('photo.jpg', 60, { transform: { quality: 5 } });
    expect(bad.error).toMatchObject({ message: 'body/transform/quality must be >= 20', status: 400 });
  });
});

describe('errors as storage-api answers them', () => {
  it('validates the options, says what is not a picture, and answers NoSuchKey for what is missing', async () => {
    const path = '/render/image/authenticated/archive';
    const as = { token: stack.serviceRoleKey };
    const bad = (message: string) => ({ statusCode: '400', code: 'InvalidRequest', error: 'Bad Request', message });
    const cases: [string, unknown][] = [
      ['photo.jpg?width=wide', bad('querystring/width must be integer')],
      ['photo.jpg?height=-1', bad('querystring/height must be >= 0')],
      ['photo.jpg?quality=101', bad('querystring/quality must be <= 100')],
      ['photo.jpg?resize=stretch', bad('querystring/resize must be equal to one of the allowed values')],
      ['photo.jpg?format=gif', bad('querystring/format must be equal to one of the allowed values')],
      [
        'photo.jpg?gravity=fp&x_offset=0.5',
        bad(`querystring must have required property 'y_offset', querystring must match "then" schema`),
      ],
      [
        'note.png?width=10',
        {
          statusCode: '400',
          code: 'InvalidRequest',
          error: 'InvalidRequest',
          message: 'The source image is invalid or unsupported for rendering',
        },
      ],
      [
        'broken.jpg?width=10&height=10',
        {
          statusCode: '400',
          code: 'InvalidRequest',
          error: 'InvalidRequest',
          message: 'The source image is invalid or unsupported for rendering',
        },
      ],
      [
        'missing.png?width=10',
        { statusCode: '404', code: 'NoSuchKey', error: 'not_found', message: 'Object not found' },
      ],
    ];
    for (const [query, body] of cases) {
      const res = await get(`${path}/${query}`, as);
      expect([res.status, res.json], query).toEqual([400, body]);
    }
    const anonymous = await get(`${path}/photo.jpg?width=10`);
    expect(anonymous.status).toBe(400);
    expect(anonymous.json).toMatchObject({ code: 'NoSuchKey' }); // anon's RLS sees no archive object
  });
});
