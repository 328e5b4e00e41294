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

/** The claims of the caller's JWT, whose signature the platform has checked (verify_jwt); null without one. */
export function callerClaims(req: Request): { role?: string; sub?: string } | null {
  const token = /^Bearer (\S+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
  const payload = token?.split('.')[1];
  if (!payload) return null;
  try {
    return JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return null;
  }
}

/** Whether the caller holds the service role: only the database (pg_net with Vault's key) and operators. */
export const isServiceRole = (req: Request) => callerClaims(req)?.role === 'service_role';

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers });
