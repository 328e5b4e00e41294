// The saved views page's loader and action (route.tsx,
// docs/product.md#views-saved-views-mentions-and-search-the-inbox): the views I see, and rename, move up or down,
// delete (after a confirmation) the ones I may change — my own, and the team's for admins. The database decides who may
// (public.saved_views' policies).
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { SavedViewsSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { type SavedViewFilters, savedViewParams } from '~/lib/helpdesk/inbox-query.server.ts';
import { UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { requireMembership } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { inboxHref } from '~/lib/helpdesk/inbox-href.ts';

const NOTICES = { renamed: 'View renamed.', moved: 'View moved.', deleted: 'View deleted.' } as const;
type Notice = keyof typeof NOTICES;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const { workspace, role } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  const { data, error } = await supabase
    .from('saved_views')
    .select('id, name, shared, owner_id, filters')
    .eq('workspace_id', workspace.id)
    .order('shared', { ascending: false })
    .order('position')
    .order('name')
    .order('id');
  if (error) throwDbError(request, error, 'saved views');
  const url = new URL(request.url);
  const notice = url.searchParams.get('done');
  const views = data.map((v) => ({
    id: v.id,
    name: v.name,
    shared: v.shared,
    href: inboxHref(workspace.slug, savedViewParams(v.filters as SavedViewFilters)),
    // Mine, or the team's for an admin: the policies' rule, to offer only what will work.
    editable: v.shared ? role === 'admin' : v.owner_id === user.id,
  }));
  const asked = url.searchParams.get('delete');
  return dataWithSession(request, {
    adminOf: role === 'admin' ? workspace.slug : null,
    workspace: { slug: workspace.slug, name: workspace.name },
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    views,
    // "Delete …?" for one of them (?delete=<id>), before it goes.
    confirmDelete: views.find((v) => v.id === asked && v.editable) ?? null,
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const { workspace } = await requireMembership(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), SavedViewsSchema);
  const raw = submission.payload.id;
  const target = typeof raw === 'string' && UUID_RE.test(raw) ? raw : null;
  if (submission.status !== 'success')
    return dataWithSession(request, { result: submission.reply(), target }, { status: 400 });
  const value = submission.value;
  const done = (notice: Notice) => redirectWithSession(request, `/w/${workspace.slug}/views?done=${notice}`);
  const refuse = (error: Parameters<typeof mapDbError>[0] | null, context: string) => {
    const { code, message, status } = error
      ? mapDbError(error, context)
      : { code: 'not_found', message: errorMessage('not_found'), status: errorStatus('not_found') };
    const field = code === 'view_name_invalid' || code === 'view_name_taken' ? 'name' : '';
    return dataWithSession(
      request,
      { result: submission.reply(field ? { fieldErrors: { name: [message] } } : { formErrors: [message] }), target },
      { status },
    );
  };
  switch (value.intent) {
    case 'rename': {
      const { error } = await supabase.rpc('rename_inbox_view', { p_id: value.id, p_name: value.name });
      return error ? refuse(error, 'rename view') : done('renamed');
    }
    case 'move': {
      const { error } = await supabase.rpc('move_inbox_view', { p_id: value.id, p_up: value.direction === 'up' });
      return error ? refuse(error, 'move view') : done('moved');
    }
    case 'delete': {
      // Under the policies: a view I may not change (or gone meanwhile) deletes nothing.
      const { data, error } = await supabase.from('saved_views').delete().eq('id', value.id).select('id');
      if (error) return refuse(error, 'delete view');
      return data.length ? done('deleted') : refuse(null, 'delete view');
    }
  }
}
