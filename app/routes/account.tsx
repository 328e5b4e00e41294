// The signed-in user's account: email (read-only) and display name, and for members the notification
// settings of each workspace (docs/product.md#notifications). The name lives in `profiles.display_name`
// (docs/product.md §3; what teammates and customers see, through RLS) and is mirrored into auth
// user_metadata.display_name so the header can read it from the JWT.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import {
  ErrorList,
  Field,
  SubmitButton,
  TextareaField,
  replyErrors,
  replyFormErrors,
  replyValue,
  useIsPending,
} from '~/components/forms.tsx';
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
import { NotificationSettingsSchema, settingsOf } from '~/lib/forms/notification-schemas.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { preferences } from '~/lib/notifications/notifications.server.ts';
import { NotificationSettingsFields } from '~/components/notification-settings.tsx';
import { SIGNATURE_MAX_LENGTH } from '~/lib/email/limits.ts';
import { SignatureSchema } from '~/lib/forms/email-settings-schemas.server.ts';

export const meta: MetaFunction = () => [
  { title: 'Your account · Tend' },
  { name: 'description', content: 'Your name and email on Tend.' },
];

// PostgREST's answers when the table isn't there (a project without the helpdesk migrations).
const NO_TABLE = new Set(['42P01', 'PGRST205']);

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const [{ data: profile, error }, { data: memberships, error: e2 }, { data: signature, error: e3 }] =
    await Promise.all([
      supabase.from('profiles').select('display_name').eq('user_id', user.id).maybeSingle(),
      supabase.from('memberships').select('workspace:workspaces(id, slug, name)').eq('user_id', user.id),
      supabase.from('signatures').select('body').eq('user_id', user.id).maybeSingle(),
    ]);
  const failed = [error, e2, e3].find((e) => e && !NO_TABLE.has(e.code));
  if (failed) {
    log.warn('account not read', { code: failed.code });
    throw errorResponse(request, 'backend_unavailable');
  }
  const workspaces = (memberships ?? []).map((m) => m.workspace).sort((a, b) => a.name.localeCompare(b.name));
  const notifications = await Promise.all(
    workspaces.map(async (w) => ({ workspace: w, rows: await preferences(request, supabase, w.id) })),
  );
  const { flash, setCookie } = await takeFlash(request);
  const displayName = (profile?.display_name as string | undefined) ?? user.displayName ?? '';
  const saved = new URL(request.url).searchParams.get('saved');
  return dataWithSession(
    request,
    {
      user: { ...user, displayName },
      saved: flash === FLASH.saved,
      notifications,
      notificationsSaved: saved,
      signature: workspaces.length ? (signature?.body ?? '') : null,
    },
    { headers: setCookie ? { 'Set-Cookie': setCookie } : undefined },
  );
}

/** One workspace's notification settings saved, or given back to the team's defaults. */
async function saveNotifications(request: Request, formData: FormData) {
  const { supabase } = await requireUser(request);
  const submission = parseSubmission(formData, NotificationSettingsSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  // A uuid (the schema's check); the per-kind fields' index type widens it.
  const workspace = submission.value.workspace as string;
  const { error } =
    submission.value.intent === 'notifications'
      ? await supabase.rpc('save_notification_settings', {
          p_workspace_id: workspace,
          p_settings: settingsOf(submission.value),
        })
      : await supabase.from('notification_settings').delete().eq('workspace_id', workspace);
  if (error) {
    const mapped = mapDbError(error, 'notification settings');
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mapped.message] }) },
      { status: mapped.status },
    );
  }
  return redirectWithSession(request, `/account?saved=${workspace}#notifications`);
}

/** A member's signature, put under each reply's draft; empty removes it. */
async function saveSignature(request: Request, formData: FormData) {
  const { supabase } = await requireUser(request);
  const submission = parseSubmission(formData, SignatureSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const body = submission.value.signature;
  const { error } = body
    ? await supabase.from('signatures').upsert({ body }, { onConflict: 'user_id' })
    : await supabase.from('signatures').delete().not('user_id', 'is', null);
  if (error) {
    const mapped = mapDbError(error, 'signature');
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mapped.message] }) },
      { status: mapped.status },
    );
  }
  return redirectWithSession(request, '/account?saved=signature#signature');
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const formData = await readFormData(request);
  if (String(formData.get('intent') ?? '').startsWith('notifications')) return saveNotifications(request, formData);
  if (formData.get('intent') === 'signature') return saveSignature(request, formData);
  const { user, supabase } = await requireUser(request);
  const submission = parseSubmission(formData, AccountSchema);
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
  const { user, saved, notifications, notificationsSaved, signature } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const result = actionData?.result;
  // Which form the action's answer is about: a notification form names its workspace, the signature's
  // its intent; the rest is the account form's.
  const notificationReply =
    replyValue(result, 'workspace') ?? (replyValue(result, 'intent') === 'signature' ? 'signature' : undefined);

  return (
    <div className="stack-lg">
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
            errors={notificationReply ? undefined : replyErrors(result, 'displayName')}
            inputProps={{
              id: 'account-displayName',
              name: 'displayName',
              type: 'text',
              // A new saved name remounts the input with it; after a refusal the typed text stays.
              key: user.displayName ?? '',
              defaultValue:
                (notificationReply ? undefined : replyValue(result, 'displayName')) ?? user.displayName ?? '',
              autoComplete: 'name',
              required: true,
              maxLength: DISPLAY_NAME_MAX_LENGTH,
            }}
          />
          <ErrorList id="account-error" errors={notificationReply ? undefined : replyErrors(result)} />
          <SubmitButton pending={pending}>Save</SubmitButton>
        </Form>
      </section>
      {signature !== null ? (
        <section className="card card--narrow stack" id="signature" aria-labelledby="signature-title">
          <h2 id="signature-title">Signature</h2>
          {notificationsSaved === 'signature' ? (
            <p className="notice notice--success" role="status">
              Saved.
            </p>
          ) : null}
          <Form method="post" noValidate className="stack">
            <TextareaField
              id="signature-body"
              name="signature"
              label="Your signature"
              hint="Put under each reply you write, where you can change or remove it for that reply. Empty: none."
              errors={notificationReply === 'signature' ? replyErrors(result, 'signature') : undefined}
              defaultValue={(notificationReply === 'signature' ? replyValue(result, 'signature') : null) ?? signature}
              maxLength={SIGNATURE_MAX_LENGTH}
              rows={4}
            />
            <button type="submit" name="intent" value="signature" className="button">
              Save signature
            </button>
          </Form>
        </section>
      ) : null}
      {notifications.length ? (
        <section className="card card--narrow stack" id="notifications" aria-labelledby="notifications-title">
          <h2 id="notifications-title">Notifications</h2>
          <p className="lead">
            What you hear of, in each workspace: in the app (the bell in the header, and{' '}
            <a href="/notifications">your notifications</a>) and by email, each time or in one email a day (at 8:00 in
            the workspace's time zone).
          </p>
          {notifications.map(({ workspace, rows }) => (
            <Form
              key={workspace.id}
              method="post"
              noValidate
              className="stack"
              aria-labelledby={`notify-${workspace.id}-title`}
            >
              <h3 id={`notify-${workspace.id}-title`}>{workspace.name}</h3>
              {notificationsSaved === workspace.id ? (
                <p className="notice notice--success" role="status">
                  Saved.
                </p>
              ) : null}
              <input type="hidden" name="workspace" value={workspace.id} />
              <NotificationSettingsFields rows={rows} idPrefix={`notify-${workspace.id}`} />
              <ErrorList
                id={`notify-${workspace.id}-error`}
                errors={notificationReply === workspace.id ? replyFormErrors(result, 'workspace') : undefined}
              />
              <div className="hd-actions">
                <button type="submit" name="intent" value="notifications" className="button">
                  Save notifications
                </button>
                {rows.some((r) => r.own) ? (
                  <button type="submit" name="intent" value="notifications_reset" className="button button--secondary">
                    Use the team's defaults
                  </button>
                ) : null}
              </div>
            </Form>
          ))}
        </section>
      ) : null}
    </div>
  );
}
