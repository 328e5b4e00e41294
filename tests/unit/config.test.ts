import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, PROJECT_DIR } from '@tend/supabase-local';
import { parseDuration, parseSize, splitStatements } from '@tend/supabase-local/testing';
import { ATTACHMENT_TYPES } from '../../supabase/functions/_shared/attachment-rules.ts';
import { ATTACHMENT_MAX_BYTES } from '../../supabase/functions/_shared/limits.ts';

describe('config.toml', () => {
  it("reads Tend's auth settings the way the CLI does", () => {
    const c = loadConfig(PROJECT_DIR);
    expect(c.auth.email).toMatchObject({ otpLength: 6, otpExpiry: 600, maxFrequency: 60 });
    expect(c.auth.email.templates.magic_link.contentPath).toBe(`${PROJECT_DIR}/supabase/templates/magic_link.html`);
    expect(c.api.schemas).toContain('public');
  });

  it("declares Tend's private attachments bucket as the CLI reads [storage.buckets.*], with the app's size and types", () => {
    const { storage } = loadConfig(PROJECT_DIR);
    expect(storage.fileSizeLimit).toBe(ATTACHMENT_MAX_BYTES);
    expect(storage.buckets.attachments).toEqual({
      public: false,
      fileSizeLimit: ATTACHMENT_MAX_BYTES,
      allowedMimeTypes: [...new Set(Object.values(ATTACHMENT_TYPES))],
      objectsPath: undefined,
    });
  });

  it('turns image transformations on only with [storage.image_transformation] enabled = true, as the CLI', () => {
    expect(loadConfig(PROJECT_DIR).storage.imageTransformation).toBe(false);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-config-'));
    const file = path.join(dir, 'config.toml');
    writeFileSync(file, 'project_id = "x"\n[storage.image_transformation]\nenabled = true\n');
    const c = loadConfig(dir, file);
    expect([c.storage.imageTransformation, c.warnings]).toEqual([true, []]);
  });

  it('parses Go durations and sizes and refuses nonsense', () => {
    expect(parseDuration('60s', 0)).toBe(60);
    expect(parseDuration('1m30s', 0)).toBe(90);
    expect(parseDuration('1h', 0)).toBe(3600);
    expect(parseDuration(undefined, 7)).toBe(7);
    expect(() => parseDuration('soon', 0)).toThrow(/invalid duration/);
    expect(parseSize('10MiB', 0)).toBe(10 * 1024 * 1024);
    expect(parseSize('50MB', 0)).toBe(50 * 1024 * 1024); // the CLI's go-units: binary units
    expect(() => parseSize('big', 0)).toThrow(/invalid size/);
  });
});

describe('splitStatements', () => {
  it('splits on semicolons outside quotes, dollar quotes and comments', () => {
    const sql = `create table a (x text default 'a;b');
-- a comment; with a semicolon
create function f() returns int language sql as $$ select 1; $$;
create function g() returns int language plpgsql as $body$ begin return 2; end $body$;
/* block; comment */ select "odd;name" from a;`;
    expect(splitStatements(sql)).toEqual([
      "create table a (x text default 'a;b')",
      '-- a comment; with a semicolon\ncreate function f() returns int language sql as $$ select 1; $$',
      'create function g() returns int language plpgsql as $body$ begin return 2; end $body$',
      '/* block; comment */ select "odd;name" from a',
    ]);
  });
});
