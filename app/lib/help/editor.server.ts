// The agents' article editor (/w/:slug/help/new, /w/:slug/help/:id; docs/product.md#the-help-center-for-the-team): what
// both pages load (the member's workspace, its collections and members, the names "who else is editing" may
// show), and one action for both pages and every button — save, publish, unpublish, preview, insert an image, delete (admins,
// after a confirmation), and autosave of drafts with JavaScript. Writes go through PostgREST as the
// member (RLS: members write and publish, admins delete); an edit carries the updated_at it started
// from, so a save over someone else's newer one is refused (article_changed) with the text kept.
import {
  unstable_createMemoryUploadHandler as createMemoryUploadHandler,
  unstable_parseMultipartFormData as parseMultipartFormData,
} from '@remix-run/node';
import { requireUser } from '../auth/session.server.ts';
import { ATTACHMENT_MAX_BYTES } from '../constants.ts';
import { errorMessage, errorStatus } from '../errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '../errors/from-db.server.ts';
import { ArticleSchema } from '../forms/help-schemas.server.ts';
import { parseSubmission } from '../forms/schemas.server.ts';
import { attachmentTypeOf, isImageType, safeStorageName } from '../helpdesk/attachments.ts';
import { namedMembers, profileNames } from '../helpdesk/profile-names.server.ts';
import { requireAdmin, requireMembership } from '../helpdesk/workspace-access.server.ts';
import { log } from '../http/log.server.ts';
import {
  dataWithSession,
  errorResponse,
  FORM_MAX_BYTES,
  readFormData,
  redirectWithSession,
} from '../http/responses.server.ts';
import { rememberForm } from '../http/kept-form.server.ts';
import type { Supabase } from '../supabase/client.server.ts';
import { HELP_BUCKET, helpImagePrefix, renderArticleBody } from './help.server.ts';

/** The member, their workspace and role, its collections and its members by name (the pages' loaders and action). */
export async function editorContext(request: Request, rawSlug: string | undefined) {
  const { user, supabase } = await requireUser(request);
  const { workspace, role } = await requireMembership(request, supabase, user.id, rawSlug ?? '');
  const [collections, members] = await Promise.all([
    supabase
      .from('help_collections')
      .select('id, title')
      .eq('workspace_id', workspace.id)
      .order('position')
      .order('title'),
    supabase.from('memberships').select('user_id, role').eq('workspace_id', workspace.id),
  ]);
  if (collections.error) throwDbError(request, collections.error, 'help collections');
  if (members.error) throwDbError(request, members.error, 'members');
  const names = await profileNames(
    request,
    supabase,
    members.data.map((m) => m.user_id),
  );
  return {
    user,
    supabase,
    workspace,
    role,
    collections: collections.data,
    members: namedMembers(members.data, names).map((m) => ({ user_id: m.user_id, name: m.name })),
  };
}

/** The file input that inserts an image into the body. */
export const IMAGE_FIELD = 'image';

const INTENTS = [
  'save',
  'publish',
  'unpublish',
  'preview',
  'upload',
  'delete',
  'delete_confirmed',
  'autosave',
] as const;
type Intent = (typeof INTENTS)[number];

export interface EditorTarget {
  workspace: { id: string; slug: string };
  /** Who edits: deleting asks requireAdmin. */
  userId: string;
  /** The article being edited; null on /new. */
  article: { id: number; status: 'draft' | 'published' } | null;
}

/** The editor's form: text fields, and an image streamed to the `help` bucket if one was chosen. */
async function readEditorForm(request: Request, supabase: Supabase, workspaceId: string) {
  if (!(request.headers.get('Content-Type') ?? '').startsWith('multipart/form-data')) {
    return { form: await readFormData(request), image: null, imageError: null };
  }
  if (Number(request.headers.get('Content-Length') ?? 0) > ATTACHMENT_MAX_BYTES * 2 + FORM_MAX_BYTES) {
    throw errorResponse(request, 'too_large');
  }
  const text = createMemoryUploadHandler({ maxPartSize: FORM_MAX_BYTES });
  let image: { url: string; name: string } | null = null;
  let imageError: string | null = null;
  let form: FormData;
  try {
    form = await parseMultipartFormData(request, async (part) => {
      if (part.filename === undefined) return text(part);
      if (part.name !== IMAGE_FIELD || !part.filename || image || imageError) return drain(part.data);
      const result = await uploadImage(supabase, workspaceId, part.filename, part.data);
      if ('error' in result) imageError = result.error;
      else image = result;
      return null;
    });
  } catch (err) {
    log.warn('help editor: unreadable form', { message: (err as Error).message });
    throw errorResponse(request, 'bad_request');
  }
  rememberForm(request, form);
  return { form, image: image as { url: string; name: string } | null, imageError: imageError as string | null };
}

/** One image to <workspace>/<id>/<safe name> in the public bucket, cached a year (its key is new). */
async function uploadImage(
  supabase: Supabase,
  workspaceId: string,
  fileName: string,
  data: AsyncIterable<Uint8Array>,
): Promise<{ url: string; name: string } | { error: string }> {
  const type = attachmentTypeOf(fileName);
  if (!type || !isImageType(type)) {
    await drain(data);
    return { error: errorMessage('attachment_type', { fileName }) };
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of data) {
    size += chunk.byteLength;
    if (size <= ATTACHMENT_MAX_BYTES) chunks.push(chunk);
  }
  if (size > ATTACHMENT_MAX_BYTES) return { error: errorMessage('attachment_too_large', { fileName }) };
  const key = `${workspaceId}/${crypto.randomUUID()}/${safeStorageName(fileName)}`;
  const { error } = await supabase.storage
    .from(HELP_BUCKET)
    .upload(key, new Blob(chunks as Uint8Array<ArrayBuffer>[], { type }), {
      contentType: type,
      cacheControl: '31536000',
    });
  if (error) {
    const status = (error as { status?: number }).status;
    // storage-api answers 400 with the real status in the body's statusCode (reference A0).
    const code = Number((error as { statusCode?: string }).statusCode ?? status);
    if (code === 413) return { error: errorMessage('attachment_too_large', { fileName }) };
    if (code === 415) return { error: errorMessage('attachment_type', { fileName }) };
    // The bucket's policy refused: the member's images no article shows, or today's uploads, are at
    // their limit (private.may_upload_help_image).
    if (code === 403) return { error: errorMessage('too_many_attempts') };
    log.error('help editor: image upload failed', { status, message: error.message });
    return { error: errorMessage(status ? 'unexpected' : 'backend_unavailable') };
  }
  return { url: `${helpImagePrefix()}${key.split('/').map(encodeURIComponent).join('/')}`, name: fileName };
}

async function drain(data: AsyncIterable<Uint8Array>): Promise<null> {
  for await (const _ of data);
  return null;
}

/** An image's Markdown at the end of the text, after a blank line. */
function withImage(body: string, image: { url: string; name: string }): string {
  const alt = image.name.replace(/\.[^.]+$/, '').replace(/[[\]\\]/g, ' ');
  return `${body.replace(/\s+$/, '')}${body.trim() ? '\n\n' : ''}![${alt}](${image.url})\n`;
}

/** The editor's action, for a new article (target.article null) or an existing one. */
export async function editorAction(request: Request, supabase: Supabase, target: EditorTarget) {
  const { workspace, article } = target;
  const { form, image, imageError } = await readEditorForm(request, supabase, workspace.id);
  const intent = String(form.get('intent') ?? 'save') as Intent;
  if (!INTENTS.includes(intent)) throw errorResponse(request, 'bad_request');
  const base = `/w/${workspace.slug}/help`;

  if (intent === 'delete' || intent === 'delete_confirmed') {
    if (!article) throw errorResponse(request, 'bad_request');
    await requireAdmin(request, supabase, target.userId, workspace.slug);
    if (intent === 'delete')
      return dataWithSession(request, { intent, confirmDelete: true, result: null, preview: null });
    const { error } = await supabase.from('help_articles').delete().eq('id', article.id);
    if (error) throwDbError(request, error, 'help delete');
    return redirectWithSession(request, `${base}?done=deleted`, { status: 303 });
  }

  const submission = parseSubmission(form, ArticleSchema);
  if (submission.status !== 'success' || imageError) {
    const reply = submission.reply(imageError ? { fieldErrors: { [IMAGE_FIELD]: [imageError] } } : undefined);
    return dataWithSession(request, { intent, confirmDelete: false, result: reply, preview: null }, { status: 400 });
  }
  // An image chosen with any button goes at the end of the text (Insert image does only that).
  const value = image ? { ...submission.value, body: withImage(submission.value.body, image) } : submission.value;

  if (intent === 'preview' || intent === 'upload') {
    // Nothing is saved: the page comes back with the text (and the new image's Markdown at its end).
    const body = value.body;
    const result = submission.reply();
    if (image && result.initialValue) (result.initialValue as Record<string, unknown>).body = body;
    return dataWithSession(request, {
      intent,
      confirmDelete: false,
      result,
      preview: intent === 'preview' ? renderArticleBody(body) : null,
    });
  }

  const status = intent === 'publish' ? 'published' : intent === 'unpublish' ? 'draft' : (article?.status ?? 'draft');
  const row = {
    title: value.title,
    body: value.body,
    collection_id: value.collection_id || null,
    status: status as 'draft' | 'published',
  };

  if (!article) {
    const { data: created, error } = await supabase
      .from('help_articles')
      .insert({ ...row, workspace_id: workspace.id })
      .select('id')
      .single();
    if (error) return refused(request, intent, submission, mapDbError(error, 'help create'));
    return redirectWithSession(
      request,
      `${base}/${created.id}?done=${status === 'published' ? 'published' : 'saved'}`,
      {
        status: 303,
      },
    );
  }

  // Autosave keeps a draft a draft: a published article changes only when someone saves it.
  if (intent === 'autosave' && article.status !== 'draft') {
    return dataWithSession(
      request,
      { intent, confirmDelete: false, result: null, preview: null, savedAt: null },
      { status: 409 },
    );
  }
  let update = supabase.from('help_articles').update(row).eq('id', article.id);
  if (value.seen) update = update.eq('updated_at', value.seen);
  const { data: saved, error } = await update.select('updated_at');
  if (error) return refused(request, intent, submission, mapDbError(error, 'help save'));
  if (!saved.length) {
    const code = 'article_changed';
    const reply = submission.reply({ formErrors: [errorMessage(code)] });
    return dataWithSession(
      request,
      { intent, confirmDelete: false, result: reply, preview: null, savedAt: null },
      {
        status: errorStatus(code),
      },
    );
  }
  if (intent === 'autosave') {
    return dataWithSession(request, {
      intent,
      confirmDelete: false,
      result: null,
      preview: null,
      savedAt: saved[0]!.updated_at,
    });
  }
  const done = intent === 'publish' ? 'published' : intent === 'unpublish' ? 'unpublished' : 'saved';
  return redirectWithSession(request, `${base}/${article.id}?done=${done}`, { status: 303 });
}

function refused(
  request: Request,
  intent: Intent,
  submission: { reply: (o?: { formErrors?: string[] }) => unknown },
  mapped: ReturnType<typeof mapDbError>,
) {
  if (mapped.code === 'not_found') throw errorResponse(request, 'not_found');
  return dataWithSession(
    request,
    {
      intent,
      confirmDelete: false,
      result: submission.reply({ formErrors: [mapped.message] }) as ReturnType<typeof Object>,
      preview: null,
      savedAt: null,
    },
    { status: mapped.status },
  );
}
