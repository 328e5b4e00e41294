// The canned replies page's loader and action (route.tsx): the replies with who added and edited
// them, and add, preview, edit and delete.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { CannedRepliesSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { PLACEHOLDER_HELP, PLACEHOLDERS, fillPlaceholders } from '~/lib/helpdesk/canned-replies.ts';
import { byTitle, exampleValues } from '~/lib/helpdesk/canned-replies.server.ts';
import { profileNames } from '~/lib/helpdesk/profile-names.server.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { NEW } from './reply-form.tsx';

const NOTICES = {
  added: 'Canned reply added.',
  saved: 'Canned reply saved.',
  deleted: 'Canned reply deleted.',
} as const;
type Notice = keyof typeof NOTICES;

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const example = exampleValues(workspace, user);
  const [{ data: rows, error }, zoneOf] = await Promise.all([
    supabase
      .from('canned_replies')
      .select('id, title, body, created_by, created_at, updated_by, updated_at')
      .eq('workspace_id', workspace.id),
    viewerZones({ request, context }, supabase),
  ]);
  if (error) throwDbError(request, error, 'canned replies');
  const names = await profileNames(
    request,
    supabase,
    rows.flatMap((r) => [r.created_by, r.updated_by]),
  );
  const who = (id: string | null) => (id && names.get(id)) || 'someone';
  const search = new URL(request.url).searchParams;
  const notice = search.get('done');
  const edit = search.get('edit');
  const zone = zoneOf(workspace.time_zone);
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace,
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    editing: rows.some((r) => r.id === edit) ? edit : null,
    placeholders: PLACEHOLDERS.map((name) => ({ name, help: PLACEHOLDER_HELP[name], example: example[name] })),
    replies: rows.sort(byTitle).map((r) => ({
      id: r.id,
      title: r.title,
      body: r.body,
      added: `Added by ${who(r.created_by)} on ${formatDateIn(r.created_at, zone)}`,
      edited: r.updated_at ? `edited by ${who(r.updated_by)} on ${formatDateIn(r.updated_at, zone)}` : null,
    })),
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const example = exampleValues(workspace, user);
  const submission = parseSubmission(await readFormData(request), CannedRepliesSchema);
  if (submission.status !== 'success') {
    const reply = submission.payload.reply;
    const target = typeof reply === 'string' && UUID_RE.test(reply) ? reply : NEW;
    return dataWithSession(request, { result: submission.reply(), target, preview: null }, { status: 400 });
  }
  const value = submission.value;
  const target = 'reply' in value && value.reply ? value.reply : NEW;
  const done = (notice: Notice) => redirectWithSession(request, `/w/${workspace.slug}/settings/replies?done=${notice}`);
  const refuse = (error: Parameters<typeof mapDbError>[0] | null, context: string) => {
    // 23505: the title is another reply's (canned_replies_title_key); no row: deleted meanwhile, or hidden.
    if (error?.code === '23505') {
      const reply = submission.reply({ fieldErrors: { title: [errorMessage('title_taken')] } });
      return dataWithSession(request, { result: reply, target, preview: null }, { status: errorStatus('title_taken') });
    }
    const { message, status } = error
      ? mapDbError(error, context)
      : { message: errorMessage('not_found'), status: errorStatus('not_found') };
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [message] }), target, preview: null },
      { status },
    );
  };

  switch (value.intent) {
    case 'preview':
      return dataWithSession(request, {
        result: submission.reply(),
        target,
        preview: fillPlaceholders(value.body, example),
      });
    case 'create': {
      const { error } = await supabase
        .from('canned_replies')
        .insert({ workspace_id: workspace.id, title: value.title, body: value.body });
      return error ? refuse(error, 'add canned reply') : done('added');
    }
    case 'update': {
      const { data: rows, error } = await supabase
        .from('canned_replies')
        .update({ title: value.title, body: value.body })
        .eq('workspace_id', workspace.id)
        .eq('id', value.reply)
        .select('id');
      return error || !rows.length ? refuse(error, 'edit canned reply') : done('saved');
    }
    case 'delete': {
      const { data: rows, error } = await supabase
        .from('canned_replies')
        .delete()
        .eq('workspace_id', workspace.id)
        .eq('id', value.reply)
        .select('id');
      return error || !rows.length ? refuse(error, 'delete canned reply') : done('deleted');
    }
  }
}
