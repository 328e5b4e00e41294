// Sign-out: POST only (a GET just goes home). Local scope — this browser, not every device —
// and every auth cookie chunk the request carried is deleted (docs/reference/remix-ssr.md §4 items 4–5).
import type { ActionFunctionArgs } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { serializeCookieHeader, parseCookieHeader } from '@supabase/ssr';
import { FLASH, setFlash } from '~/lib/auth/cookies.server.ts';
import { combineHeaders, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { getSupabase, isAuthCookieName } from '~/lib/supabase/client.server.ts';

export function loader() {
  return redirect('/');
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { supabase, written } = getSupabase(request);
  await supabase.auth.signOut({ scope: 'local' });

  // auth-js clears what it could load; delete any leftover chunk (e.g. a corrupt session it ignored).
  const extra: [string, string][] = parseCookieHeader(request.headers.get('Cookie') ?? '')
    .filter(({ name }) => isAuthCookieName(name) && !written.has(name))
    .map(({ name }) => ['Set-Cookie', serializeCookieHeader(name, '', { path: '/', maxAge: 0, sameSite: 'lax' })]);
  return redirectWithSession(request, '/', {
    headers: combineHeaders(extra, [['Set-Cookie', await setFlash(request, FLASH.signedOut)]]),
  });
}
