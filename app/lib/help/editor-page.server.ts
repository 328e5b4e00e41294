// What the editor's two pages load (/w/:slug/help/new and /w/:slug/help/:id; docs/product.md §2.3):
// the member's workspace, its collections and members (the names "who else is editing" may show).
import { requireUser } from '../auth/session.server.ts';
import { throwDbError } from '../errors/from-db.server.ts';
import { namedMembers, profileNames, requireMembership } from '../helpdesk/queries.server.ts';

export { editorAction } from './editor.server.ts';

export async function editorContext(request: Request, rawSlug: string | undefined) {
  const { user, supabase } = await requireUser(request);
  const { workspace, role } = await requireMembership(request, supabase, user.id, rawSlug ?? '');
  const [collections, members] = await Promise.all([
    supabase
      .from('help_collections')
      .select('id, title')
      .eq('workspace_id', workspace.id)
      .order('position')
      .order('title'),
    supabase.from('memberships').select('user_id, role').eq('workspace_id', workspace.id),
  ]);
  if (collections.error) throwDbError(request, collections.error, 'help collections');
  if (members.error) throwDbError(request, members.error, 'members');
  const names = await profileNames(
    request,
    supabase,
    members.data.map((m) => m.user_id),
  );
  return {
    user,
    supabase,
    workspace,
    role,
    collections: collections.data,
    members: namedMembers(members.data, names).map((m) => ({ user_id: m.user_id, name: m.name })),
  };
}
