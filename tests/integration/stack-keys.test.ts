// The keys as the Supabase CLI makes them, through supabase-js: by default the published HS256 anon
// and service_role keys with ES256 user tokens signed by the CLI's built-in key; with
// `[auth] signing_keys_path` (RS256 or ES256) every key and token follows the project's own keys,
// and the gateway and PostgREST take any key those sign (docs/reference/supabase-fidelity.md §4).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@supabase/supabase-js';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type JWK,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ANON_KEY, DEFAULT_SERVICE_ROLE_KEY } from '@tend/supabase-local';
import { DEFAULT_SIGNING_KEY } from '@tend/supabase-local';
import { stackFixture } from '../support/fixture.ts';
import { clientFor, newEmail, type TestStack } from '../support/stack.ts';

const PASSWORD = 'key-test-pass-1';

async function signUp(stack: TestStack) {
  const c = clientFor(stack);
  const { data, error } = await c.auth.signUp({ email: newEmail('keys'), password: PASSWORD });
  if (error) throw error;
  return { c, session: data.session! };
}

async function jwks(stack: TestStack) {
  return (await (await fetch(`${stack.apiUrl}/auth/v1/.well-known/jwks.json`)).json()) as { keys: JWK[] };
}

const rest = (stack: TestStack, key: string, pathAndQuery: string) =>
  fetch(`${stack.apiUrl}/rest/v1/${pathAndQuery}`, { headers: { apikey: key } });

describe('keys without signing_keys_path (HS256 API keys, ES256 user tokens)', () => {
  const stack = stackFixture();

  it("uses the CLI's published HS256 anon and service_role keys", () => {
    expect(stack.anonKey).toBe(DEFAULT_ANON_KEY);
    expect(stack.serviceRoleKey).toBe(DEFAULT_SERVICE_ROLE_KEY);
    expect(decodeProtectedHeader(stack.anonKey).alg).toBe('HS256');
  });

  it("signs a user's access token with the CLI's built-in ES256 key, published at the JWKS", async () => {
    const { c, session } = await signUp(stack);
    expect(decodeProtectedHeader(session.access_token)).toMatchObject({ alg: 'ES256', kid: DEFAULT_SIGNING_KEY.kid });
    const { keys } = await jwks(stack);
    expect(keys).toEqual([expect.objectContaining({ kid: DEFAULT_SIGNING_KEY.kid, kty: 'EC', key_ops: ['verify'] })]);
    expect(keys[0]).not.toHaveProperty('d');
    await jwtVerify(session.access_token, createLocalJWKSet({ keys }));
    const claims = await c.auth.getClaims();
    expect(claims.data?.claims.sub).toBe(session.user.id);
    // PostgREST takes both: the user's ES256 token and the HS256 anon key.
    expect((await c.from('notes').select('body')).error).toBeNull();
    expect((await rest(stack, stack.anonKey, 'notes?select=body')).status).toBe(200);
  });

  it('takes any HS256 key the JWT secret signs, and refuses one signed with another secret', async () => {
    const secret = new TextEncoder().encode(stack.jwtSecret);
    const minted = await new SignJWT({ role: 'service_role', iss: 'supabase-demo' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setExpirationTime('1h')
      .sign(secret);
    const all = await rest(stack, minted, 'notes?select=body');
    expect(all.status).toBe(200);
    expect(await all.json()).toHaveLength(2); // service_role bypasses RLS
    const forged = await new SignJWT({ role: 'service_role' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('another-secret-of-at-least-32-characters'));
    const refused = await rest(stack, forged, 'notes?select=body');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ message: 'Invalid API key' });
  });
});

for (const alg of ['RS256', 'ES256'] as const) {
  describe(`keys from signing_keys_path (${alg})`, () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tend-keys-'));
    const file = path.join(dir, 'signing_keys.json');
    let privateJwk: JWK;
    let privateKey: CryptoKey;
    let publicKey: CryptoKey;
    beforeAll(async () => {
      const pair = await generateKeyPair(alg, { extractable: true });
      privateKey = pair.privateKey as CryptoKey;
      publicKey = pair.publicKey as CryptoKey;
      // As `supabase gen signing-key` writes it: a JSON array of private JWKs.
      privateJwk = {
        ...(await exportJWK(pair.privateKey)),
        kid: `test-${alg.toLowerCase()}`,
        alg,
        use: 'sig',
        key_ops: ['sign', 'verify'],
        ext: true,
      };
      writeFileSync(file, JSON.stringify([privateJwk]));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    // An absolute path: the CLI resolves a relative one against supabase/, and takes an absolute one as is.
    const stack = stackFixture({ configure: (c) => void (c.auth.signingKeysPath = file) });

    it('derives the anon and service_role keys from the first key, as the CLI does', async () => {
      for (const [key, role] of [
        [stack.anonKey, 'anon'],
        [stack.serviceRoleKey, 'service_role'],
      ] as const) {
        expect(decodeProtectedHeader(key)).toMatchObject({ alg, kid: privateJwk.kid });
        const { payload } = await jwtVerify(key, publicKey, { algorithms: [alg] });
        expect(payload).toMatchObject({ iss: 'supabase-demo', role });
        // Ten years from now (CLI apikeys.go), not the published keys' fixed 2032 expiry.
        expect(payload.exp! - Date.now() / 1000).toBeGreaterThan(9.9 * 365 * 24 * 3600);
      }
    });

    it('signs access tokens with the key and publishes its public half', async () => {
      const { c, session } = await signUp(stack);
      expect(decodeProtectedHeader(session.access_token)).toMatchObject({ alg, kid: privateJwk.kid });
      const { keys } = await jwks(stack);
      expect(keys).toEqual([expect.objectContaining({ kid: privateJwk.kid, alg, key_ops: ['verify'] })]);
      expect(keys[0]).not.toHaveProperty('d');
      const claims = await c.auth.getClaims();
      expect(claims.data?.claims.sub).toBe(session.user.id);
      // supabase-js with the derived anon key, through the gateway to PostgREST and Storage.
      expect((await c.from('notes').insert({ body: `mine ${alg}` })).error).toBeNull();
      const mine = await c.from('notes').select('body');
      expect(mine.data).toEqual([{ body: `mine ${alg}` }]);
      const admin = createClient(stack.apiUrl, stack.serviceRoleKey, { auth: { persistSession: false } });
      expect((await admin.storage.listBuckets()).error).toBeNull();
    });

    it("takes a key minted with the project's own key (an .env from an earlier start), refuses others", async () => {
      const minted = await new SignJWT({ iss: 'supabase-demo', role: 'service_role' })
        .setProtectedHeader({ alg, kid: privateJwk.kid!, typ: 'JWT' })
        .setExpirationTime('1h')
        .sign(privateKey);
      const all = await rest(stack, minted, 'notes?select=body');
      expect(all.status).toBe(200);
      expect((await all.json()).length).toBeGreaterThanOrEqual(2);

      const other = await generateKeyPair(alg);
      const foreign = await new SignJWT({ role: 'service_role' })
        .setProtectedHeader({ alg, kid: privateJwk.kid! })
        .sign(other.privateKey);
      expect((await rest(stack, foreign, 'notes?select=body')).status).toBe(401);
    });

    it('no longer verifies HS256 tokens at PostgREST, as the CLI passes it only the JWKS', async () => {
      // The gateway passes it (the JWT secret signed it); PostgREST refuses it with its own JWT error.
      const res = await rest(stack, DEFAULT_ANON_KEY, 'notes?select=body');
      expect(res.status).toBe(401);
      expect((await res.json()).code).toMatch(/^PGRST3/);
      expect(decodeJwt(stack.anonKey).role).toBe('anon');
    });
  });
}
