// /account's loader and action (route.tsx): the account form (display name, mirrored into auth
// user_metadata.display_name so the header can read it from the JWT), the time zone, the signature and
// each workspace's notification settings.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { mapAuthError, mappedMessage } from '~/lib/errors/from-auth.server.ts';
import { requireUser } from '~/lib/auth/session.server.ts';
import { getSupabase } from '~/lib/supabase/client.server.ts';
import { FLASH, setFlash, takeFlash } from '~/lib/auth/cookies.server.ts';
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
import { TIME_ZONES, TimeZoneSettingSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { SignatureSchema } from '~/lib/forms/email-settings-schemas.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import { personalTimeZone } from '~/lib/helpdesk/time-zone.ts';
import { browserTimeZone, viewerState } from '~/lib/helpdesk/viewer-zone.server.ts';
import { preferences } from '~/lib/notifications/notifications.server.ts';

// PostgREST's answers when the table isn't there (a project without the helpdesk migrations).
const NO_TABLE = new Set(['42P01', 'PGRST205']);

/**
 * The time zone form: my setting (null: automatic), my browser's zone as its script last said it, the
 * zones to choose from, and the time now in the zone my pages use (none yet: each workspace's).
 */
function timeZoneChoice(request: Request, setting: string | null) {
  const browser = browserTimeZone(request);
  const used = personalTimeZone(setting, browser);
  return {
    setting,
    browser,
    zones: TIME_ZONES,
    now: used ? formatDateIn(new Date().toISOString(), used) : null,
  };
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const [{ data: profile, error }, { data: memberships, error: e2 }, { data: signature, error: e3 }, viewer] =
    await Promise.all([
      supabase.from('profiles').select('display_name').eq('user_id', user.id).maybeSingle(),
      supabase.from('memberships').select('workspace:workspaces(id, slug, name)').eq('user_id', user.id),
      supabase.from('signatures').select('body').eq('user_id', user.id).maybeSingle(),
      viewerState(context, supabase),
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
      timeZone: timeZoneChoice(request, viewer.time_zone),
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

/** My time zone: one from the list, or automatic (my browser's; null). */
async function saveTimeZone(request: Request, formData: FormData) {
  const { supabase } = await requireUser(request);
  const submission = parseSubmission(formData, TimeZoneSettingSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const { error } = await supabase
    .from('user_settings')
    .upsert({ time_zone: submission.value.time_zone || null }, { onConflict: 'user_id' });
  if (error) {
    // The database's own check (a zone it doesn't know) is the form's message too.
    const mapped = mapDbError(error, 'time zone setting');
    const code = mapped.code === 'bad_request' ? 'time_zone_invalid' : mapped.code;
    return dataWithSession(
      request,
      { result: submission.reply({ fieldErrors: { time_zone: [errorMessage(code)] } }) },
      { status: errorStatus(code) },
    );
  }
  return redirectWithSession(request, '/account?saved=time_zone#time-zone');
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const formData = await readFormData(request);
  if (formData.get('intent') === 'time_zone') return saveTimeZone(request, formData);
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
