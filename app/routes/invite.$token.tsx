// Accepting an invitation (docs/product.md §2, §4): the link in the invitation email. Signed out,
// sign-in comes first and returns here (redirectTo keeps the deep link). The GET only shows a button,
// so a mail scanner or a link on another site joins nobody anywhere; the POST is accept_invitation,
// which refuses another account's email (`invitation_email_mismatch`) and an expired, revoked or used
// link (`invitation_invalid`), and then it is the workspace's inbox.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, SubmitButton, replyFormErrors, useIsPending } from '~/components/forms.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { AcceptInvitationSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { INVITATION_TOKEN_RE } from '~/lib/workspace/invitations.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data?.invitation ? `Join ${data.invitation.workspace} · Tend` : 'Invitation · Tend' },
  { name: 'description', content: 'An invitation to join a team on Tend.' },
  // No Referer to other sites (the URL holds a token); same-origin keeps the POST's Origin, which a
  // no-referrer policy would send as `null` without JavaScript (and requireSameOrigin refuses).
  { name: 'referrer', content: 'same-origin' },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const token = params.token ?? '';
  // What it offers: the workspace, who invited and the role (invitation_preview; none for a token that isn't one).
  const { data, error } = INVITATION_TOKEN_RE.test(token)
    ? await supabase.rpc('invitation_preview', { p_token: token }).maybeSingle()
    : { data: null, error: null };
  if (error) throwDbError(request, error, 'invitation preview');
  const valid = !!data && !data.problem;
  return dataWithSession(
    request,
    {
      email: user.email,
      invitation: data ? { workspace: data.workspace_name, inviter: data.inviter_name, role: data.role } : null,
      problem: valid ? null : errorMessage('invitation_invalid'),
    },
    { status: valid ? 200 : errorStatus('invitation_invalid') },
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { supabase } = await requireUser(request);
  const submission = parseSubmission(await readFormData(request), AcceptInvitationSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const token = params.token ?? '';
  if (!INVITATION_TOKEN_RE.test(token)) {
    const reply = submission.reply({ formErrors: [errorMessage('invitation_invalid')] });
    return dataWithSession(request, { result: reply }, { status: errorStatus('invitation_invalid') });
  }
  const { data: rows, error } = await supabase.rpc('accept_invitation', { p_token: token });
  if (error) {
    const mapped = mapDbError(error, 'accept_invitation');
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mapped.message] }) },
      { status: mapped.status },
    );
  }
  const joined = rows?.[0];
  return redirectWithSession(request, joined ? `/w/${joined.slug}` : '/');
}

export default function InvitationPage() {
  const { email, invitation, problem } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const errors = problem ? [problem] : replyFormErrors(actionData?.result);

  return (
    <section className="card card--narrow stack" aria-labelledby="invite-title">
      <h1 id="invite-title">{invitation ? `Join ${invitation.workspace} on Tend` : 'Join your team on Tend'}</h1>
      <p className="lead" data-testid="invitation">
        {invitation
          ? `${invitation.inviter ?? 'An admin'} invited you to ${invitation.workspace} as ${invitation.role === 'admin' ? 'an admin' : 'an agent'}.`
          : 'You were invited to a workspace.'}{' '}
        You are signed in as <strong data-testid="invite-email">{email}</strong>.
      </p>
      <ErrorList id="accept-error" errors={errors} />
      {problem ? null : (
        <Form method="post" noValidate>
          <SubmitButton pending={pending} name="intent" value="accept">
            Accept invitation
          </SubmitButton>
        </Form>
      )}
      <p className="muted small">
        Invited with another address? Sign out, then open the link in the invitation again and sign in with that one.
      </p>
    </section>
  );
}
