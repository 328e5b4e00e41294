// The email settings page's loader and action (route.tsx): the sender, the look and the logo, a preview
// of what customers get, the DNS records of the sender's domain and their check
// (docs/decisions/046-sender-and-branding.md).
import {
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  MaxPartSizeExceededError,
  unstable_createMemoryUploadHandler as createMemoryUploadHandler,
  unstable_parseMultipartFormData as parseMultipartFormData,
} from '@remix-run/node';
import { BRANDING_BUCKET, logoUrl, senderAddressVerified } from '../../../supabase/functions/_shared/email-brand.ts';
import { domainOf, senderRecords } from '../../../supabase/functions/_shared/sender-domain.ts';
import { requireUser } from '~/lib/auth/session.server.ts';
import { env } from '~/lib/env.server.ts';
import { LOGO_MAX_BYTES } from '~/lib/email/limits.ts';
import { previewEmail } from '~/lib/email/preview.server.ts';
import { errorMessage } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { EmailSettingsSchema, typedSettings } from '~/lib/forms/email-settings-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { log } from '~/lib/http/log.server.ts';
import { rememberForm } from '~/lib/http/kept-form.server.ts';
import {
  dataWithSession,
  errorResponse,
  FORM_MAX_BYTES,
  readFormData,
  redirectWithSession,
  requireSameOrigin,
} from '~/lib/http/responses.server.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';

const COLUMNS =
  'sender_name, sender_address, accent_color, logo_path, footer, dkim_selector, verification_token, verified_domain, verified_at';

const NOTICES = { saved: 'Saved.', verified: 'Verified: emails now come from your address.' } as const;

async function readSettings(request: Request, supabase: Supabase, workspaceId: string) {
  const { data, error } = await supabase
    .from('workspace_email_settings')
    .select(COLUMNS)
    .eq('workspace_id', workspaceId)
    .maybeSingle();
  if (error) throwDbError(request, error, 'email settings');
  return data;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const [settings, cc] = await Promise.all([
    readSettings(request, supabase, workspace.id),
    supabase.from('workspaces').select('cc_adds_followers').eq('id', workspace.id).single(),
  ]);
  if (cc.error) throwDbError(request, cc.error, 'cc followers setting');
  const domain = domainOf(settings?.sender_address);
  const done = new URL(request.url).searchParams.get('done');
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace,
    settings,
    verified: senderAddressVerified(settings),
    records: settings && domain ? senderRecords(domain, settings.verification_token, settings.dkim_selector) : [],
    domain,
    logoUrl: settings?.logo_path ? logoUrl(env.SUPABASE_URL, settings.logo_path) : null,
    preview: previewEmail(workspace.name, settings, user.displayName || user.email),
    notice: done && done in NOTICES ? NOTICES[done as keyof typeof NOTICES] : null,
    ccAddsFollowers: cc.data.cc_adds_followers,
  });
}

/** The image types a logo may be, by their first bytes (a name or a declared type can say anything). */
const LOGO_TYPES: { ext: string; type: string; magic: (b: Uint8Array) => boolean }[] = [
  { ext: 'png', type: 'image/png', magic: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 },
  { ext: 'jpg', type: 'image/jpeg', magic: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { ext: 'gif', type: 'image/gif', magic: (b) => String.fromCharCode(...b.slice(0, 4)) === 'GIF8' },
  {
    ext: 'webp',
    type: 'image/webp',
    magic: (b) => String.fromCharCode(...b.slice(0, 4)) === 'RIFF' && String.fromCharCode(...b.slice(8, 12)) === 'WEBP',
  },
];

/** The form: text fields and the logo (held in memory: at most LOGO_MAX_BYTES). */
async function readSettingsForm(request: Request): Promise<{ form: FormData; logo: File | null; logoError?: string }> {
  if (!(request.headers.get('Content-Type') ?? '').startsWith('multipart/form-data'))
    return { form: await readFormData(request), logo: null };
  const declared = Number(request.headers.get('Content-Length') ?? Number.NaN);
  if (declared > LOGO_MAX_BYTES + FORM_MAX_BYTES) throw errorResponse(request, 'too_large');
  let form: FormData;
  try {
    form = await parseMultipartFormData(request, createMemoryUploadHandler({ maxPartSize: LOGO_MAX_BYTES }));
  } catch (err) {
    if (err instanceof MaxPartSizeExceededError) throw errorResponse(request, 'logo_too_large');
    throw errorResponse(request, 'bad_request');
  }
  const logo = form.get('logo');
  form.delete('logo');
  rememberForm(request, form);
  // An empty file input still sends a part, with no name and no bytes.
  return { form, logo: logo instanceof File && logo.size > 0 ? logo : null };
}

/** The logo in the public bucket, under the workspace's folder, as the admin (the bucket's policies decide). */
async function uploadLogo(supabase: Supabase, workspaceId: string, logo: File): Promise<string | { error: string }> {
  const bytes = new Uint8Array(await logo.arrayBuffer());
  const kind = LOGO_TYPES.find((t) => t.magic(bytes));
  if (!kind) return { error: errorMessage('logo_invalid') };
  const path = `${workspaceId}/${crypto.randomUUID()}.${kind.ext}`;
  const { error } = await supabase.storage.from(BRANDING_BUCKET).upload(path, bytes, { contentType: kind.type });
  if (error) {
    log.error('email settings: logo upload failed', { message: error.message });
    return { error: errorMessage('backend_unavailable') };
  }
  return path;
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const { form, logo } = await readSettingsForm(request);

  if (form.get('intent') === 'verify') return verify(request, supabase, workspace);
  // Whether the people an inbound email copies follow its ticket (docs/decisions/064-followers.md).
  if (form.get('intent') === 'cc_followers') {
    const { error } = await supabase
      .from('workspaces')
      .update({ cc_adds_followers: form.get('cc_adds_followers') === 'on' })
      .eq('id', workspace.id);
    if (error) throwDbError(request, error, 'cc followers setting');
    return redirectWithSession(request, `/w/${workspace.slug}/settings/email?done=saved`);
  }

  const submission = parseSubmission(form, EmailSettingsSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const saved = await readSettings(request, supabase, workspace.id);
  const { verified_domain: _, ...typed } = typedSettings(submission.value, saved);
  if (submission.value.intent === 'preview')
    return dataWithSession(request, {
      result: submission.reply(),
      preview: previewEmail(workspace.name, { ...typed, verified_domain: null }, user.displayName || user.email),
    });

  let logoPath = typed.logo_path;
  if (logo) {
    const uploaded = await uploadLogo(supabase, workspace.id, logo);
    if (typeof uploaded !== 'string')
      return dataWithSession(
        request,
        { result: submission.reply({ fieldErrors: { logo: [uploaded.error] } }) },
        { status: uploaded.error === errorMessage('logo_invalid') ? 415 : 503 },
      );
    logoPath = uploaded;
  }
  // The row exists from the first save on: inserted (only what INSERT may set), then changed.
  const table = supabase.from('workspace_email_settings');
  const { error: e1 } = await table.upsert({ workspace_id: workspace.id }, { ignoreDuplicates: true });
  const { error: e2 } = e1
    ? { error: e1 }
    : await supabase
        .from('workspace_email_settings')
        .update({ ...typed, logo_path: logoPath })
        .eq('workspace_id', workspace.id);
  if (e2) {
    if (logoPath && logoPath !== saved?.logo_path) await supabase.storage.from(BRANDING_BUCKET).remove([logoPath]);
    const mapped = mapDbError(e2, 'email settings');
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [mapped.message] }) },
      { status: mapped.status },
    );
  }
  // The logo it replaced is no one's any more.
  if (saved?.logo_path && saved.logo_path !== logoPath)
    await supabase.storage.from(BRANDING_BUCKET).remove([saved.logo_path]);
  return redirectWithSession(request, `/w/${workspace.slug}/settings/email?done=saved`);
}

/** Asks verify-sender-domain (as the admin: it checks they are one) whether the domain's records are there. */
async function verify(request: Request, supabase: Supabase, workspace: { id: string; slug: string }) {
  const { data, error } = await supabase.functions.invoke<{ domain: string; verified: boolean }>(
    'verify-sender-domain',
    { body: { workspace_id: workspace.id } },
  );
  if (error || !data) {
    log.warn('email settings: verify-sender-domain failed', { message: error?.message });
    throw errorResponse(request, 'backend_unavailable');
  }
  if (!data.verified)
    return dataWithSession(
      request,
      { verifyError: errorMessage('sender_domain_unverified', { domain: data.domain }) },
      { status: 409 },
    );
  return redirectWithSession(request, `/w/${workspace.slug}/settings/email?done=verified`);
}
