// What the email functions share about the platform: the service-role client and the caller check.
import { createClient, type SupabaseClient } from './deps.ts';

let client: SupabaseClient | undefined;

/** The service-role client: these functions act for the platform (RLS doesn't apply). */
export function admin(): SupabaseClient {
  client ??= createClient(Deno.env.get('SUPABASE_URL')!, Deno.env.get('SUPABASE_SERVICE_ROLE_KEY')!, {
    auth: { persistSession: false, autoRefreshToken: false },
  });
  return client;
}

/**
 * Whether the caller holds the service role. The platform has checked the JWT's signature
 * (verify_jwt); only the database (pg_net with Vault's key) and operators may call these functions.
 */
export function isServiceRole(req: Request): boolean {
  const token = /^Bearer (\S+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
  const payload = token?.split('.')[1];
  if (!payload) return false;
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')));
    return claims.role === 'service_role';
  } catch {
    return false;
  }
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers });
