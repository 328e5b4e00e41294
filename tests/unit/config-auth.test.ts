// config.toml's [auth] settings as the Supabase CLI reads them, and the keys the local stack reports.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unsupportedKeys } from '@tend/supabase-local/testing';
import { loadConfig } from '@tend/supabase-local';
import { PROJECT_DIR } from '@tend/supabase-local';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** loadConfig on a project whose config.toml is `toml`. */
function configOf(toml: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-config-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'supabase'));
  writeFileSync(path.join(dir, 'supabase', 'config.toml'), toml);
  return loadConfig(dir);
}

describe('[auth] in config.toml', () => {
  it('maps password_requirements to the character sets GoTrue checks, and raises a minimum below 6', () => {
    const c = configOf(
      '[auth]\nminimum_password_length = 4\npassword_requirements = "lower_upper_letters_digits_symbols"\n',
    );
    expect(c.auth.password.minLength).toBe(6);
    expect(c.auth.password.requiredCharacters).toEqual([
      'abcdefghijklmnopqrstuvwxyz',
      'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
      '0123456789',
      '!@#$%^&*()_+-=[]{};\'\\:"|<>?,./`~',
    ]);
    expect(() => configOf('[auth]\npassword_requirements = "digits"\n')).toThrow(
      /password_requirements must be one of/,
    );
  });

  it('keeps enabled hooks, refusing the URIs and secrets the CLI and GoTrue refuse', () => {
    const secret = `v1,whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`;
    const c = configOf(
      `[auth.hook.custom_access_token]\nenabled = true\nuri = "pg-functions://postgres/public/hook"\n` +
        `[auth.hook.send_sms]\nenabled = false\nuri = "nonsense"\n` +
        `[auth.hook.send_email]\nenabled = true\nuri = "http://localhost:9999/mail"\nsecrets = "${secret}"\n`,
    );
    expect(c.auth.hooks).toEqual({
      custom_access_token: { uri: 'pg-functions://postgres/public/hook', secrets: [] },
      send_email: { uri: 'http://localhost:9999/mail', secrets: [secret] },
    });
    const hook = (body: string) => () => configOf(`[auth.hook.send_email]\nenabled = true\n${body}`);
    expect(hook('')).toThrow('Missing required field in config: auth.hook.send_email.uri');
    expect(hook('uri = "https://hooks.example/x"\n')).toThrow('auth.hook.send_email.secrets');
    expect(hook('uri = "https://hooks.example/x"\nsecrets = "short"\n')).toThrow(/must be formatted as "v1,whsec_/);
    expect(hook(`uri = "http://hooks.example/x"\nsecrets = "${secret}"\n`)).toThrow(/only localhost/);
    expect(hook('uri = "pg-functions://postgres/public"\n')).toThrow(/invalid table name/);
    expect(hook('uri = "ftp://x"\n')).toThrow(/should be a HTTP, HTTPS, or pg-functions URI/);
  });
});

describe('config.toml keys the stack does not honour', () => {
  it('finds none in Tend’s own config.toml', () => {
    expect(loadConfig(PROJECT_DIR).warnings).toEqual([]);
  });

  it('names unknown keys, unsupported ones, and values other than the ones the stack runs with', () => {
    expect(
      unsupportedKeys({
        project_id: 'x',
        db: { port: 54322, major_version: 15, pooler: { enabled: false, port: 1 } },
        auth: {
          enable_signup: true,
          jwt_secret: 'mine',
          mfa: { phone: { enroll_enabled: true } },
          external: { github: { enabled: false, client_id: 'a' }, apple: { enabled: true } },
          hook: { send_email: { enabled: true, uri: 'x' } },
          typo_key: 1,
        },
        storage: { buckets: { avatars: { public: true } } },
      }),
    ).toEqual([
      'db.major_version = 15 is not supported by the local stack; it runs as with 17',
      'auth.jwt_secret is not supported by the local stack; ignored',
      'auth.mfa.phone.enroll_enabled = true is not supported by the local stack; it runs as with false',
      'auth.external.apple.enabled = true is not supported by the local stack; it runs as with false',
      'auth.typo_key is not a config.toml key the Supabase CLI knows; ignored',
    ]);
  });
});
