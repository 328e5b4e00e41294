// GET /realtime-token: the signed-in user's access token for the browser's Realtime client
// (app/lib/realtime/client.ts), refreshed here like any page's session (its cookies come back with
// it). The browser could read it from the session cookie too; asking the server keeps one place
// that refreshes. A cross-site page can't read the answer (no CORS), and nothing may cache it.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { getOptionalUser } from '~/lib/auth/session.server.ts';
import type { AccessToken } from '~/lib/realtime/client.ts';
import { jsonResponse } from '~/lib/http/responses.server.ts';
import { getSupabase } from '~/lib/supabase/client.server.ts';

const NO_STORE = { 'Cache-Control': 'no-store' };

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getOptionalUser(request);
  const session = user ? (await getSupabase(request).supabase.auth.getSession()).data.session : null;
  if (!session?.expires_at) return jsonResponse(request, { error: 'unauthorized' }, { status: 401, headers: NO_STORE });
  const body: AccessToken = { token: session.access_token, expiresAt: session.expires_at };
  return jsonResponse(request, body, { headers: NO_STORE });
}
