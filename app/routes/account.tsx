// The signed-in user's account: email (read-only) and display name. The name lives in
// `profiles.display_name` (docs/product.md §3; what teammates and customers see, through RLS) and is
// mirrored into auth user_metadata.display_name so the header can read it from the JWT.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, Field, SubmitButton, replyErrors, replyValue, useIsPending } from '~/components/forms.tsx';
import { mapAuthError, mappedMessage } from '~/lib/errors/from-auth.server.ts';
import { requireUser } from '~/lib/auth/session.server.ts';
import { getSupabase } from '~/lib/supabase/client.server.ts';
import { FLASH, setFlash, takeFlash } from '~/lib/auth/cookies.server.ts';
import { DISPLAY_NAME_MAX_LENGTH } from '~/lib/constants.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import {
  dataWithSession,
  errorResponse,
  redirectWithSession,
  readFormData,
  requireSameOrigin,
} from '~/lib/http/responses.server.ts';
import { log } from '~/lib/http/log.server.ts';
import { AccountSchema, parseSubmission } from '~/lib/forms/schemas.server.ts';

export const meta: MetaFunction = () => [
  { title: 'Your account · Tend' },
  { name: 'description', content: 'Your name and email on Tend.' },
];

// PostgREST's answers when the table isn't there (a project without the helpdesk migrations).
const NO_TABLE = new Set(['42P01', 'PGRST205']);

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const { data: profile, error } = await supabase
    .from('profiles')
    .select('display_name')
    .eq('user_id', user.id)
    .maybeSingle();
  if (error && !NO_TABLE.has(error.code)) {
    log.warn('profile not read', { code: error.code });
    throw errorResponse(request, 'backend_unavailable');
  }
  const { flash, setCookie } = await takeFlash(request);
  const displayName = (profile?.display_name as string | undefined) ?? user.displayName ?? '';
  return dataWithSession(
    request,
    { user: { ...user, displayName }, saved: flash === FLASH.saved },
    { headers: setCookie ? { 'Set-Cookie': setCookie } : undefined },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const submission = parseSubmission(await readFormData(request), AccountSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const { displayName } = submission.value;

  const { error: profileError } = await supabase
    .from('profiles')
    .update({ display_name: displayName })
    .eq('user_id', user.id);
  if (profileError && !NO_TABLE.has(profileError.code)) {
    // 23514: the table's length check (the same rule as the schema), anything else is ours.
    const code = profileError.code === '23514' ? 'display_name_invalid' : 'backend_unavailable';
    log.warn('display name not saved', { code, pg_code: profileError.code });
    const reply =
      code === 'display_name_invalid'
        ? submission.reply({ fieldErrors: { displayName: [errorMessage(code)] } })
        : submission.reply({ formErrors: [errorMessage(code)] });
    return dataWithSession(request, { result: reply }, { status: errorStatus(code) });
  }

  // Auth calls go through the cookie-bound client: it sends the session and writes the refreshed one.
  const { auth } = getSupabase(request).supabase;
  const { error } = await auth.updateUser({ data: { display_name: displayName } });
  if (error) {
    const mapped = mapAuthError(error);
    log.warn('display name not saved', { code: mapped.code, auth_code: error.code, status: error.status });
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mappedMessage(mapped)] }) },
      { status: errorStatus(mapped.code) },
    );
  }
  // The header reads the name from the JWT; a refreshed token carries the new metadata.
  await auth.refreshSession();
  return redirectWithSession(request, '/account', { headers: { 'Set-Cookie': await setFlash(request, FLASH.saved) } });
}

export default function AccountPage() {
  const { user, saved } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const result = actionData?.result;

  return (
    <section className="card card--narrow" aria-labelledby="account-title">
      <h1 id="account-title">Your account</h1>
      {saved ? (
        <p className="notice notice--success" role="status">
          Saved.
        </p>
      ) : null}
      <dl className="facts">
        <dt>Email</dt>
        <dd data-testid="account-email">{user.email}</dd>
      </dl>
      <Form method="post" id="account" noValidate className="stack">
        <Field
          label="Display name"
          hint="Shown to your team and to customers you reply to."
          errors={replyErrors(result, 'displayName')}
          inputProps={{
            id: 'account-displayName',
            name: 'displayName',
            type: 'text',
            // A new saved name remounts the input with it; after a refusal the typed text stays.
            key: user.displayName ?? '',
            defaultValue: replyValue(result, 'displayName') ?? user.displayName ?? '',
            autoComplete: 'name',
            required: true,
            maxLength: DISPLAY_NAME_MAX_LENGTH,
          }}
        />
        <ErrorList id="account-error" errors={replyErrors(result)} />
        <SubmitButton pending={pending}>Save</SubmitButton>
      </Form>
    </section>
  );
}
