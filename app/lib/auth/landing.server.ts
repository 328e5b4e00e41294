// Where sign-in ends when nothing asked for a page (docs/product.md §2): a member of exactly one
// workspace goes to its inbox, everyone else to the home page (their workspaces and requests).
import type { User } from '@supabase/supabase-js';
import { getSupabase } from '../supabase/client.server.ts';

/** `to` itself, unless it is the home page and `user` (just signed in) belongs to one workspace. */
export async function landingPage(request: Request, to: string, user: User | null | undefined): Promise<string> {
  if (to !== '/' || !user) return to;
  // The just-signed-in client: RLS shows this user's own memberships (and their workspaces' others).
  const { data } = await getSupabase(request)
    .supabase.from('memberships')
    .select('workspaces(slug)')
    .eq('user_id', user.id)
    .limit(2);
  const slug = data?.length === 1 ? data[0].workspaces?.slug : undefined;
  return slug ? `/w/${slug}` : to;
}
