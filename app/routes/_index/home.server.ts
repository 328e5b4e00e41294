// The front page's loader (route.tsx): signed in, the workspaces I belong to and the requests I
// opened; signed out, the "signed out" notice once.
import type { LoaderFunctionArgs } from '@remix-run/node';
import { FLASH, takeFlash } from '~/lib/auth/cookies.server.ts';
import { getOptionalUser } from '~/lib/auth/session.server.ts';
import { throwDbError } from '~/lib/errors/from-db.server.ts';
import { dataWithSession } from '~/lib/http/responses.server.ts';
import { getSupabase } from '~/lib/supabase/client.server.ts';

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getOptionalUser(request);
  const { flash, setCookie } = await takeFlash(request);
  const [workspaces, requests] = user
    ? await Promise.all([myWorkspaces(request, user.id), myRequests(request, user.id)])
    : [[], []];
  return dataWithSession(
    request,
    { user, signedOut: flash === FLASH.signedOut, workspaces, requests },
    { headers: setCookie ? { 'Set-Cookie': setCookie } : undefined },
  );
}

/** The workspaces the user belongs to, by name. */
async function myWorkspaces(request: Request, userId: string) {
  const { supabase } = getSupabase(request);
  const { data, error } = await supabase
    .from('memberships')
    .select('role, workspaces(slug, name)')
    .eq('user_id', userId);
  if (error) throwDbError(request, error, 'my workspaces');
  return (data ?? [])
    .flatMap(({ role, workspaces: w }) => (w ? [{ slug: w.slug, name: w.name, role }] : []))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The requests the user opened, newest activity first. */
async function myRequests(request: Request, userId: string) {
  const { supabase } = getSupabase(request);
  const { data, error } = await supabase
    .from('tickets')
    .select('number, subject, status, last_message_at, workspaces(slug, name)')
    .eq('requester_id', userId)
    .order('last_message_at', { ascending: false })
    .limit(50);
  if (error) throwDbError(request, error, 'my requests');
  return (data ?? []).flatMap(({ workspaces: w, ...r }) =>
    w ? [{ number: r.number, subject: r.subject, status: r.status, slug: w.slug, workspace: w.name }] : [],
  );
}
