// `status -o env|json`: the running stack's URLs and keys under the Supabase CLI's variable names
// (internal/status/status.go CustomName, docs/reference/supabase-fidelity.md §8.1), so an `.env`
// written from it reads the same as one written from `supabase status -o env`.
import type { StatusFile } from '../stack.ts';

// [config path, default name] per value, in the CLI's order. GRAPHQL_URL, STUDIO_URL, MCP_URL and the
// S3 values are left out: the stack serves neither GraphQL, Studio nor the S3 protocol, and the CLI
// leaves out what isn't running.
const NAMES = [
  ['api.url', 'API_URL'],
  ['api.rest_url', 'REST_URL'],
  ['api.functions_url', 'FUNCTIONS_URL'],
  ['db.url', 'DB_URL'],
  ['inbucket.url', 'INBUCKET_URL'],
  ['mailpit.url', 'MAILPIT_URL'],
  ['auth.publishable_key', 'PUBLISHABLE_KEY'],
  ['auth.secret_key', 'SECRET_KEY'],
  ['auth.jwt_secret', 'JWT_SECRET'],
  ['auth.anon_key', 'ANON_KEY'],
  ['auth.service_role_key', 'SERVICE_ROLE_KEY'],
] as const;
type ConfigPath = (typeof NAMES)[number][0];

export class OverrideNameError extends Error {}

/** `--override-name api.url=NEXT_PUBLIC_SUPABASE_URL`, as many as given. */
export function parseOverrides(flags: string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  for (const flag of flags) {
    const [key, name] = flag.split('=', 2);
    if (!key || !name || !NAMES.some(([path]) => path === key))
      throw new OverrideNameError(
        `--override-name ${flag}: expected <key>=<NAME> with key one of ${NAMES.map(([p]) => p).join(', ')}`,
      );
    out.set(key, name);
  }
  return out;
}

/** The values the CLI prints, keyed by variable name. */
export function statusValues(
  s: StatusFile,
  opts: { functions: boolean; overrides?: Map<string, string> },
): Record<string, string> {
  const values: Record<ConfigPath, string | undefined> = {
    'api.url': s.apiUrl,
    'api.rest_url': `${s.apiUrl}/rest/v1`,
    'api.functions_url': opts.functions ? `${s.apiUrl}/functions/v1` : undefined,
    'db.url': s.dbUrl,
    'inbucket.url': s.mailUrl,
    'mailpit.url': s.mailUrl,
    'auth.publishable_key': s.publishableKey,
    'auth.secret_key': s.secretKey,
    'auth.jwt_secret': s.jwtSecret,
    'auth.anon_key': s.anonKey,
    'auth.service_role_key': s.serviceRoleKey,
  };
  const out: Record<string, string> = {};
  for (const [path, name] of NAMES) {
    const value = values[path];
    if (value !== undefined) out[opts.overrides?.get(path) ?? name] = value;
  }
  return out;
}

// godotenv's doubleQuoteSpecialChars: escaped with a backslash, line breaks as \n and \r.
const quoted = (v: string) => v.replace(/[\\\n\r"!$`]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\${c}`));

/** godotenv.Marshal: `KEY="value"` lines sorted by key. */
export function toDotenv(values: Record<string, string>): string {
  return Object.keys(values)
    .sort()
    .map((k) => `${k}="${quoted(values[k]!)}"`)
    .join('\n');
}
