// The arithmetic of image transformations, as imgproxy (processing/prepare.go calcScale,
// calcPosition) and storage-api (ImageRenderer.applyTransformation / setTransformationsFromString)
// do it, and list-v2's cursor format; the rendering itself is tested against the stack.
import { describe, expect, it } from 'vitest';
import {
  cropOrigin,
  decodeCursor,
  encodeCursor,
  fromSegments,
  geometry,
  parseTransform,
  segments,
} from '@tend/supabase-local/testing';

describe('geometry (400 × 300 source)', () => {
  it('covers, fits and forces as imgproxy fill, fit and force', () => {
    expect(geometry(400, 300, { width: 100, height: 100 })).toEqual({
      scaled: { width: 133, height: 100 },
      crop: { width: 100, height: 100 },
    });
    expect(geometry(400, 300, { width: 100, height: 100, resize: 'contain' })).toEqual({
      scaled: { width: 100, height: 75 },
    });
    expect(geometry(400, 300, { width: 100, height: 100, resize: 'fill' })).toEqual({
      scaled: { width: 100, height: 100 },
    });
  });

  it('follows the one size given, but force keeps the other side as it is', () => {
    expect(geometry(400, 300, { height: 150 })?.scaled).toEqual({ width: 200, height: 150 });
    expect(geometry(400, 300, { width: 200, resize: 'fill' })?.scaled).toEqual({ width: 200, height: 300 });
  });

  it('never enlarges: the crop shrinks with the undone scale and keeps the asked aspect ratio', () => {
    expect(geometry(400, 300, { width: 800, height: 100 })).toEqual({
      scaled: { width: 400, height: 300 },
      crop: { width: 400, height: 50 },
    });
    expect(geometry(400, 300, { width: 1000, resize: 'contain' })?.scaled).toEqual({ width: 400, height: 300 });
  });

  it('clamps sizes to 1–2000 and treats 0 as not set', () => {
    expect(geometry(4000, 3000, { width: 5000, resize: 'contain' })?.scaled).toEqual({ width: 2000, height: 1500 });
    expect(geometry(400, 300, { width: 0, height: 0 })).toBeUndefined();
  });
});

describe('cropOrigin', () => {
  const outer = { width: 133, height: 100 };
  const inner = { width: 100, height: 100 };
  it('places the crop at the gravity, offsets relative below 1 and in pixels above', () => {
    expect(cropOrigin(outer, inner, {})).toEqual({ left: 17, top: 0 });
    expect(cropOrigin(outer, inner, { gravity: 'we' })).toEqual({ left: 0, top: 0 });
    expect(cropOrigin(outer, inner, { gravity: 'ea' })).toEqual({ left: 33, top: 0 });
    expect(cropOrigin(outer, inner, { gravity: 'ea', x_offset: 10 })).toEqual({ left: 23, top: 0 });
    expect(cropOrigin(outer, inner, { gravity: 'fp', x_offset: 1, y_offset: 0.5 })).toEqual({ left: 33, top: 0 });
  });
});

describe('transform options', () => {
  it('coerces query strings as Ajv does and refuses what the schema refuses, in its words', () => {
    expect(parseTransform({ width: '100', quality: '50', resize: 'contain' }, 'querystring', true)).toEqual({
      width: 100,
      quality: 50,
      resize: 'contain',
    });
    expect(() => parseTransform({ width: '100' }, 'body/transform', false)).toThrow(
      'body/transform/width must be integer',
    );
    expect(() => parseTransform({ width: 1.5 }, 'querystring', true)).toThrow('querystring/width must be integer');
    expect(() => parseTransform({ gravity: 'fp', x_offset: 2, y_offset: 0 }, 'querystring', false)).toThrow(
      'querystring/x_offset must be <= 1, querystring must match "then" schema',
    );
  });

  it('signs `resize` as given and renders imgproxy resizing types; a token’s string reads back', () => {
    expect(segments({ width: 60 }, true)).toEqual(['width:60', 'resize:undefined']);
    expect(segments({ width: 60, height: 40, resize: 'contain', quality: 70, format: 'webp' })).toEqual([
      'height:40',
      'width:60',
      'resizing_type:fit',
      'quality:70',
      'format:webp',
    ]);
    expect(segments({ format: 'origin', gravity: 'no', x_offset: 5 })).toEqual(['gravity:no:5:0']);
    expect(fromSegments('height:40,width:60,resize:contain,gravity:fp:0.2:0.8')).toEqual({
      height: 40,
      width: 60,
      resize: 'contain',
      gravity: 'fp',
      x_offset: 0.2,
      y_offset: 0.8,
    });
  });
});

describe('list-v2 cursors', () => {
  it('are storage-api’s l:/o:/c:/a: lines in base64, and anything else is refused', () => {
    const cursor = encodeCursor({
      startAfter: 'a/b.txt',
      order: 'desc',
      column: 'created_at',
      after: '2026-01-01T00:00:00.000Z',
    });
    expect(Buffer.from(cursor, 'base64').toString()).toBe(
      'l:a/b.txt\no:desc\nc:created_at\na:2026-01-01T00:00:00.000Z',
    );
    expect(decodeCursor(cursor)).toEqual({
      startAfter: 'a/b.txt',
      order: 'desc',
      column: 'created_at',
      after: '2026-01-01T00:00:00.000Z',
    });
    expect(() => decodeCursor(Buffer.from('x:1').toString('base64'))).toThrow('Invalid Parameter continuation token');
  });
});
