// Members and invitations (admins only, docs/product.md §2, §6): who belongs with their role and since
// when, change a role, remove someone (never the last admin: the database's `last_admin`), invite by
// email with a role, and the pending invitations with resend and revoke. Row-level security decides
// every read and write; an agent is refused here as there.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useLocation } from '@remix-run/react';
import { ErrorList, Field, SubmitButton, replyErrors, replyFormErrors, replyValue } from '~/components/forms.tsx';
import { SelectField } from '~/components/helpdesk-ui.tsx';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { EMAIL_MAX_LENGTH, INVITATION_LIFETIME_DAYS } from '~/lib/constants.ts';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { MembersSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { one, requireAdmin } from '~/lib/helpdesk/queries.server.ts';
import { formatDate, type MemberRole } from '~/lib/helpdesk/vocabulary.ts';
import { data, readFormData, redirectWithHeaders, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { INVITATION_TOKEN_HEADER, newInvitationToken } from '~/lib/workspace/invitations.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Members · ${data.workspace.name} · Tend` : 'Members · Tend' },
];

const ROLE_LABELS: Record<MemberRole, string> = { admin: 'Admin', agent: 'Agent' };

const NOTICES = {
  invited: 'Invitation sent.',
  resent: 'Invitation sent again. The new link works for 7 days.',
  revoked: 'Invitation revoked.',
  role: 'Role changed.',
  removed: 'Member removed.',
} as const;
type Notice = keyof typeof NOTICES;

async function requireAdminPage(request: Request, slug: string) {
  const { user, supabase } = await requireUser(request);
  return { user, supabase, workspace: await requireAdmin(request, supabase, user.id, slug) };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase, workspace } = await requireAdminPage(request, params.slug ?? '');
  const [members, invitations] = await Promise.all([
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
  ]);
  if (members.error) throwDbError(request, members.error, 'members');
  if (invitations.error) throwDbError(request, invitations.error, 'invitations');
  const notice = new URL(request.url).searchParams.get('done');
  const now = Date.now();
  return data(request, {
    adminOf: workspace.slug,
    workspace,
    me: user.id,
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    members: members.data.map((m) => ({
      user_id: m.user_id,
      role: m.role,
      since: formatDate(m.created_at),
      name: one(m.profile)?.display_name ?? 'Unknown',
    })),
    invitations: invitations.data.map((i) => ({
      id: i.id,
      email: i.email,
      role: i.role,
      expires: formatDate(i.expires_at),
      expired: Date.parse(i.expires_at) <= now,
    })),
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase, workspace } = await requireAdminPage(request, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), MembersSchema);
  if (submission.status !== 'success') {
    const { member, invitation } = submission.payload;
    const target = typeof member === 'string' ? member : typeof invitation === 'string' ? invitation : null;
    return data(request, { result: submission.reply(), target }, { status: 400 });
  }
  const value = submission.value;
  const done = (notice: Notice) => redirectWithHeaders(request, `/w/${workspace.slug}/settings/members?done=${notice}`);
  const target = 'member' in value ? value.member : 'invitation' in value ? value.invitation : null;
  const refuse = (message: string, status: number) =>
    data(request, { result: submission.reply({ formErrors: [message] }), target }, { status });
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
        ? redirectWithHeaders(request, `/w/${workspace.slug}`)
        : done('role');
    }
    case 'remove': {
      const { data: rows, error } = await supabase
        .from('memberships')
        .delete()
        .eq('workspace_id', workspace.id)
        .eq('user_id', value.member)
        .select('user_id');
      if (error) return refuseDb(error, 'remove member');
      if (!rows.length) return missing();
      return value.member === user.id ? redirectWithHeaders(request, '/') : done('removed');
    }
  }
}

export default function MembersPage() {
  const { workspace, me, notice, members, invitations } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // Each arrival after a sent invitation starts the invite form afresh. While it is refused the form
  // stays mounted (what is typed stays, also when the loaders revalidate after the action).
  const { key: arrival } = useLocation();
  const result = actionData?.result;
  const invite = result?.initialValue?.intent === 'invite' ? result : undefined;
  // A refusal is shown at the row it concerns, or at the invite form.
  const rowErrors = (id: string) => (actionData?.target === id ? replyFormErrors(result, 'role') : undefined);

  return (
    <section className="stack-lg" aria-labelledby="members-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="members"
        title="Members"
        titleId="members-title"
        notice={notice}
      />

      <section className="card stack" aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        <Form method="post" noValidate className="hd-actions" id="invite" key={invite ? 'refused' : arrival}>
          <Field
            label="Email address"
            errors={replyErrors(invite, 'email')}
            inputProps={{
              id: 'invite-email',
              name: 'email',
              type: 'email',
              required: true,
              maxLength: EMAIL_MAX_LENGTH,
              autoComplete: 'off',
              spellCheck: false,
              defaultValue: replyValue(invite, 'email'),
            }}
          />
          <SelectField id="invite-role" name="role" label="Role" defaultValue={replyValue(invite, 'role') ?? 'agent'}>
            <option value="agent">Agent</option>
            <option value="admin">Admin</option>
          </SelectField>
          <SubmitButton name="intent" value="invite">
            Send invitation
          </SubmitButton>
        </Form>
        <ErrorList id="invite-error" errors={replyFormErrors(invite, 'role')} />
        <p className="muted small">
          They get an email with a link to the invitation (they sign in with that address to accept). It works for{' '}
          {INVITATION_LIFETIME_DAYS} days.
        </p>
      </section>

      <section className="card stack" aria-labelledby="team-title">
        <h2 id="team-title">Team ({members.length})</h2>
        <ul className="hd-list" data-testid="members">
          {members.map((m) => (
            <li key={m.user_id} className="hd-list__item hd-member" data-testid="member">
              <div className="hd-member__who">
                <strong>{m.name}</strong>
                {m.user_id === me ? <span className="muted"> (you)</span> : null}
                <span className="muted small">
                  {' '}
                  · {ROLE_LABELS[m.role]} since {m.since}
                </span>
              </div>
              <Form method="post" className="hd-actions">
                <input type="hidden" name="member" value={m.user_id} />
                <SelectField id={`role-${m.user_id}`} name="role" label={`Role of ${m.name}`} defaultValue={m.role}>
                  <option value="agent">Agent</option>
                  <option value="admin">Admin</option>
                </SelectField>
                <SubmitButton name="intent" value="role" className="button button--secondary">
                  Change role
                </SubmitButton>
                <SubmitButton name="intent" value="remove" className="button button--ghost">
                  Remove<span className="visually-hidden"> {m.name}</span>
                </SubmitButton>
              </Form>
              <ErrorList id={`member-${m.user_id}-error`} errors={rowErrors(m.user_id)} />
            </li>
          ))}
        </ul>
      </section>

      <section className="card stack" aria-labelledby="pending-title">
        <h2 id="pending-title">Pending invitations</h2>
        {invitations.length ? (
          <ul className="hd-list" data-testid="invitations">
            {invitations.map((i) => (
              <li key={i.id} className="hd-list__item hd-member" data-testid="invitation">
                <div className="hd-member__who">
                  <strong>{i.email}</strong>
                  <span className="muted small">
                    {' '}
                    · {ROLE_LABELS[i.role]} · {i.expired ? `expired ${i.expires}` : `expires ${i.expires}`}
                  </span>
                </div>
                <Form method="post" className="hd-actions">
                  <input type="hidden" name="invitation" value={i.id} />
                  <SubmitButton name="intent" value="resend" className="button button--secondary">
                    Resend<span className="visually-hidden"> to {i.email}</span>
                  </SubmitButton>
                  <SubmitButton name="intent" value="revoke" className="button button--ghost">
                    Revoke<span className="visually-hidden"> for {i.email}</span>
                  </SubmitButton>
                </Form>
                <ErrorList id={`invitation-${i.id}-error`} errors={rowErrors(i.id)} />
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No pending invitations.</p>
        )}
      </section>
    </section>
  );
}
