// The tags page's loader and action (route.tsx): the workspace's tags with their ticket counts, and
// add, rename and colour, merge, delete, and whether agents create tags while tagging.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { TagsSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import type { TicketTag } from '~/lib/helpdesk/inbox-query.server.ts';
import { UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { NEW_TAG, SETTING } from './tag-forms.ts';

const NOTICES = {
  added: 'Tag added.',
  saved: 'Tag saved.',
  merged: 'Tags merged.',
  deleted: 'Tag deleted.',
  setting: 'Setting saved.',
} as const;
type Notice = keyof typeof NOTICES;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const [tags, setting] = await Promise.all([
    supabase.rpc('workspace_tags', { p_slug: workspace.slug }, { get: true }),
    supabase.from('workspaces').select('agents_create_tags').eq('id', workspace.id).single(),
  ]);
  if (tags.error) throwDbError(request, tags.error, 'tags');
  if (setting.error) throwDbError(request, setting.error, 'tags setting');
  const notice = new URL(request.url).searchParams.get('done');
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace,
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    agentsCreateTags: setting.data.agents_create_tags,
    tags: tags.data as unknown as (TicketTag & { tickets: number })[],
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), TagsSchema);
  const raw = submission.payload.tag;
  const target =
    typeof raw === 'string' && UUID_RE.test(raw)
      ? raw
      : submission.payload.intent === 'agents_create'
        ? SETTING
        : NEW_TAG;
  if (submission.status !== 'success')
    return dataWithSession(request, { result: submission.reply(), target }, { status: 400 });
  const value = submission.value;
  const done = (notice: Notice) => redirectWithSession(request, `/w/${workspace.slug}/settings/tags?done=${notice}`);
  const refuse = (error: Parameters<typeof mapDbError>[0] | null, context: string) => {
    // 23505: the name is another tag's (tags_name_key); no row: gone meanwhile, or not this workspace's.
    if (error?.code === '23505') {
      const result = submission.reply({ fieldErrors: { name: [errorMessage('tag_taken')] } });
      return dataWithSession(request, { result, target }, { status: errorStatus('tag_taken') });
    }
    const { message, status } = error
      ? mapDbError(error, context)
      : { message: errorMessage('not_found'), status: errorStatus('not_found') };
    return dataWithSession(request, { result: submission.reply({ formErrors: [message] }), target }, { status });
  };

  switch (value.intent) {
    case 'add': {
      const { error } = await supabase
        .from('tags')
        .insert({ workspace_id: workspace.id, name: value.name, colour: value.colour });
      return error ? refuse(error, 'add tag') : done('added');
    }
    case 'edit': {
      const { data: rows, error } = await supabase
        .from('tags')
        .update({ name: value.name, colour: value.colour })
        .eq('workspace_id', workspace.id)
        .eq('id', value.tag)
        .select('id');
      return error || !rows.length ? refuse(error, 'edit tag') : done('saved');
    }
    case 'merge': {
      const { error } = await supabase.rpc('merge_tags', { p_from: value.tag, p_into: value.into });
      return error ? refuse(error, 'merge tags') : done('merged');
    }
    case 'delete': {
      const { data: rows, error } = await supabase
        .from('tags')
        .delete()
        .eq('workspace_id', workspace.id)
        .eq('id', value.tag)
        .select('id');
      return error || !rows.length ? refuse(error, 'delete tag') : done('deleted');
    }
    case 'agents_create': {
      const { error } = await supabase
        .from('workspaces')
        .update({ agents_create_tags: value.agents_create_tags === 'on' })
        .eq('id', workspace.id);
      return error ? refuse(error, 'tags setting') : done('setting');
    }
  }
}
