// The members page's loader and action (route.tsx): members and pending invitations; invite, resend,
// revoke, change a role, remove.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { MembersSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { viewerZones } from '~/lib/helpdesk/viewer-zone.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { INVITATION_TOKEN_HEADER, newInvitationToken } from '~/lib/workspace/invitations.server.ts';

/** One embedded row: PostgREST gives an object for a to-one embedding, typed as either. */
function one<T>(embedded: T | T[] | null | undefined): T | undefined {
  return (Array.isArray(embedded) ? embedded[0] : embedded) ?? undefined;
}

const NOTICES = {
  invited: 'Invitation sent.',
  resent: 'Invitation sent again. The new link works for 7 days.',
  revoked: 'Invitation revoked.',
  role: 'Role changed.',
  removed: 'Member removed.',
} as const;
type Notice = keyof typeof NOTICES;

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const [members, invitations, zoneOf] = await Promise.all([
    supabase
      .from('memberships')
      .select('user_id, role, created_at, profile:profiles!memberships_user_profile_fkey(display_name)')
      .eq('workspace_id', workspace.id)
      .order('created_at'),
    supabase
      .from('invitations')
      .select('id, email, role, expires_at')
      .eq('workspace_id', workspace.id)
      .is('accepted_at', null)
      .is('revoked_at', null)
      .order('created_at', { ascending: false }),
    viewerZones({ request, context }, supabase),
  ]);
  if (members.error) throwDbError(request, members.error, 'members');
  if (invitations.error) throwDbError(request, invitations.error, 'invitations');
  const url = new URL(request.url);
  const notice = url.searchParams.get('done');
  // ?remove=<member>: the removal to confirm, with how many of their tickets aren't closed.
  const removing = members.data.find((m) => m.user_id === url.searchParams.get('remove'));
  let removingTickets = 0;
  if (removing) {
    const { count, error } = await supabase
      .from('tickets')
      .select('id', { count: 'exact', head: true })
      .eq('workspace_id', workspace.id)
      .eq('assignee_id', removing.user_id)
      .neq('status', 'closed');
    if (error) throwDbError(request, error, 'member tickets');
    removingTickets = count ?? 0;
  }
  const now = Date.now();
  const zone = zoneOf(workspace.time_zone);
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace,
    me: user.id,
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    removing: removing ? { user_id: removing.user_id, tickets: removingTickets } : null,
    members: members.data.map((m) => ({
      user_id: m.user_id,
      role: m.role,
      since: formatDateIn(m.created_at, zone),
      name: one(m.profile)?.display_name ?? 'Unknown',
    })),
    invitations: invitations.data.map((i) => ({
      id: i.id,
      email: i.email,
      role: i.role,
      expires: formatDateIn(i.expires_at, zone),
      expired: Date.parse(i.expires_at) <= now,
    })),
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), MembersSchema);
  if (submission.status !== 'success') {
    const { member, invitation } = submission.payload;
    const target = typeof member === 'string' ? member : typeof invitation === 'string' ? invitation : null;
    return dataWithSession(request, { result: submission.reply(), target }, { status: 400 });
  }
  const value = submission.value;
  const done = (notice: Notice) => redirectWithSession(request, `/w/${workspace.slug}/settings/members?done=${notice}`);
  const target = 'member' in value ? value.member : 'invitation' in value ? value.invitation : null;
  const refuse = (message: string, status: number) =>
    dataWithSession(request, { result: submission.reply({ formErrors: [message] }), target }, { status });
  const refuseDb = (error: Parameters<typeof mapDbError>[0], context: string) => {
    const mapped = mapDbError(error, context);
    return refuse(mapped.message, mapped.status);
  };
  // A row RLS hid, or that is gone (revoked in another tab, say), is answered like a missing one.
  const missing = () => refuse(errorMessage('not_found'), 404);

  switch (value.intent) {
    case 'invite': {
      const { token, hash } = newInvitationToken();
      // A pending invitation to the same address gets the new token and role (one link works, the newest).
      // The token goes with the write: the database has notify mail it (INVITATION_TOKEN_HEADER).
      const pending = await supabase
        .from('invitations')
        .update({ token_hash: hash, role: value.role })
        .eq('workspace_id', workspace.id)
        .eq('email', value.email)
        .is('accepted_at', null)
        .is('revoked_at', null)
        .select('id')
        .setHeader(INVITATION_TOKEN_HEADER, token);
      if (pending.error) return refuseDb(pending.error, 'invite');
      if (!pending.data.length) {
        const { error } = await supabase
          .from('invitations')
          .insert({
            workspace_id: workspace.id,
            email: value.email,
            role: value.role,
            token_hash: hash,
            invited_by: user.id,
          })
          .setHeader(INVITATION_TOKEN_HEADER, token);
        if (error) return refuseDb(error, 'invite');
      }
      return done('invited');
    }
    case 'resend': {
      const { token, hash } = newInvitationToken();
      const { data: rows, error } = await supabase
        .from('invitations')
        .update({ token_hash: hash })
        .eq('workspace_id', workspace.id)
        .eq('id', value.invitation)
        .select('id')
        .setHeader(INVITATION_TOKEN_HEADER, token);
      if (error) return refuseDb(error, 'resend');
      return rows.length ? done('resent') : missing();
    }
    case 'revoke': {
      const { data: rows, error } = await supabase
        .from('invitations')
        .update({ revoked_at: new Date().toISOString() })
        .eq('workspace_id', workspace.id)
        .eq('id', value.invitation)
        .select('id');
      if (error) return refuseDb(error, 'revoke');
      return rows.length ? done('revoked') : missing();
    }
    case 'role': {
      const { data: rows, error } = await supabase
        .from('memberships')
        .update({ role: value.role })
        .eq('workspace_id', workspace.id)
        .eq('user_id', value.member)
        .select('user_id');
      if (error) return refuseDb(error, 'change role');
      if (!rows.length) return missing();
      // An admin who made themselves an agent may no longer see this page.
      return value.member === user.id && value.role !== 'admin'
        ? redirectWithSession(request, `/w/${workspace.slug}`)
        : done('role');
    }
    case 'remove': {
      const { error } = await supabase.rpc('remove_member', {
        p_workspace_id: workspace.id,
        p_user_id: value.member,
        p_reassign_to: value.reassign_to,
      });
      if (error) return refuseDb(error, 'remove member');
      return value.member === user.id ? redirectWithSession(request, '/') : done('removed');
    }
  }
}
