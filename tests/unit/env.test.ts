import { describe, expect, it } from 'vitest';
import { DEFAULT_ANON_KEY, DEFAULT_SECRET_KEY } from '@tend/supabase-local';
import { browserEnv, parseEnv } from '~/lib/env.server.ts';

describe('environment', () => {
  it('defaults to the local stack, so `npm run dev` needs no .env', () => {
    const env = parseEnv({});
    expect(env.SUPABASE_URL).toBe('http://127.0.0.1:54321');
    expect(env.SUPABASE_ANON_KEY).toBe(DEFAULT_ANON_KEY);
    expect(env.TRUST_PROXY).toBe(false);
    expect(env.SESSION_SECRET.length).toBeGreaterThanOrEqual(16);
  });

  it('reads flags and URLs from the process environment', () => {
    const env = parseEnv({
      SUPABASE_URL: 'https://ref.supabase.co',
      TRUST_PROXY: '1',
      APP_ORIGIN: 'https://tend.example',
    });
    expect(env.SUPABASE_URL).toBe('https://ref.supabase.co');
    expect(env.TRUST_PROXY).toBe(true);
    expect(env.APP_ORIGIN).toBe('https://tend.example');
  });

  it('refuses to start with a bad value, naming the variable', () => {
    expect(() => parseEnv({ SUPABASE_URL: 'not a url' })).toThrow(/SUPABASE_URL/);
    expect(() => parseEnv({ SESSION_SECRET: 'short' })).toThrow(/SESSION_SECRET/);
    expect(() => parseEnv({ TRUST_PROXY: 'maybe' })).toThrow(/TRUST_PROXY/);
  });

  it("uses the local stack's secret key for sign-in calls only when SUPABASE_URL is the local stack", () => {
    expect(parseEnv({}).signInKey).toBe(DEFAULT_SECRET_KEY);
    expect(parseEnv({ SUPABASE_URL: 'http://localhost:55321' }).signInKey).toBe(DEFAULT_SECRET_KEY);
    expect(parseEnv({ SUPABASE_URL: 'https://ref.supabase.co' }).signInKey).toBeNull();
    const key = 'sb_secret_abcdefghijklmnopqrstuv';
    expect(parseEnv({ SUPABASE_URL: 'https://ref.supabase.co', SUPABASE_SECRET_KEY: key }).signInKey).toBe(key);
    expect(() => parseEnv({ SUPABASE_SECRET_KEY: 'eyJhbGciOi.not-a-secret-key' })).toThrow(/SUPABASE_SECRET_KEY/);
  });

  it('refuses to start in production without SESSION_SECRET, saying what to set', () => {
    expect(() => parseEnv({ NODE_ENV: 'production' })).toThrow(/SESSION_SECRET is not set/);
    expect(() => parseEnv({ NODE_ENV: 'production', SESSION_SECRET: '' })).toThrow(/SESSION_SECRET is not set/);
    expect(parseEnv({ NODE_ENV: 'production', SESSION_SECRET: 'a-real-secret-of-some-length' }).NODE_ENV).toBe(
      'production',
    );
    expect(parseEnv({ NODE_ENV: 'development' }).SESSION_SECRET.length).toBeGreaterThanOrEqual(16);
  });

  it('gives the browser only the URL and the anon key', () => {
    expect(Object.keys(browserEnv()).sort()).toEqual(['SUPABASE_ANON_KEY', 'SUPABASE_URL']);
  });
});
