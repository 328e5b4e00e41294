// A composer's form with files: the text fields kept in memory, each file streamed from the request
// straight to storage AS THE USER (their token; the bucket's policies decide, 40_attachments.sql) under
// their own prefix, <uploader>/<workspace>/<ticket>/<attachment>/<safe name>, never held whole. Limits
// are checked while reading (count, type, size), so a refused file costs no upload; create_ticket and
// post_message then record what was uploaded (checking it again), and a post that fails removes its
// objects (removeUploads). Downloads are streamed back by sendFile.
import {
  unstable_createMemoryUploadHandler as createMemoryUploadHandler,
  unstable_parseMultipartFormData as parseMultipartFormData,
} from '@remix-run/node';
import type { Supabase } from '../supabase/client.server.ts';
import { errorMessage } from '../errors/catalogue.server.ts';
import { throwDbError } from '../errors/from-db.server.ts';
import { log } from '../http/log.server.ts';
import { rememberForm } from '../http/kept-form.server.ts';
import { applySecurityHeaders } from '../http/security-headers.server.ts';
import { errorResponse, FORM_MAX_BYTES, readFormData, responseHeaders } from '../http/responses.server.ts';
import {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENTS_BUCKET,
  ATTACHMENTS_PER_MESSAGE,
  attachmentDisposition,
  attachmentTypeOf,
  downloadType,
  FILES_FIELD,
  safeStorageName,
} from './attachments.ts';
import { UUID_RE } from './ticket-terms.ts';

export interface Upload {
  id: string;
  key: string;
  file_name: string;
  storage_name: string;
}

export interface MessageForm {
  /** The text fields (what Conform reads). */
  form: FormData;
  /** Files now in storage, to record with the message (or remove). */
  uploads: Upload[];
  /** Catalogue messages for the files field; when there are any, nothing was kept in storage (unless `keepAccepted`). */
  fileErrors: string[];
  /** Every file chosen, by name: shown again when the post is refused, to be attached again. */
  fileNames: string[];
}

// The most a post with files may send: five files at the limit, the text, and room for one file a
// little over the limit, which is read to the end to be refused with its name.
const MULTIPART_MAX_BYTES = (ATTACHMENTS_PER_MESSAGE + 2) * ATTACHMENT_MAX_BYTES + FORM_MAX_BYTES;

/** Where a message's files go: the uploader's prefix, the workspace and the ticket (40_attachments.sql). */
export interface UploadFolder {
  uploaderId: string;
  workspaceId: string;
  ticketId: string;
}

/**
 * The form of a message to `folder`: text and streamed files. With `keepAccepted`, a refused file
 * leaves the accepted ones in storage for the caller to keep (or remove).
 */
export async function readMessageForm(
  request: Request,
  supabase: Supabase,
  folder: UploadFolder,
  { keepAccepted = false }: { keepAccepted?: boolean } = {},
): Promise<MessageForm> {
  const contentType = request.headers.get('Content-Type') ?? '';
  if (!contentType.startsWith('multipart/form-data')) {
    return { form: await readFormData(request), uploads: [], fileErrors: [], fileNames: [] };
  }
  const declared = Number(request.headers.get('Content-Length') ?? Number.NaN);
  if (declared > MULTIPART_MAX_BYTES) throw errorResponse(request, 'too_large');

  const uploads: Upload[] = [];
  const fileErrors: string[] = [];
  const fileNames: string[] = [];
  let files = 0;
  const text = createMemoryUploadHandler({ maxPartSize: FORM_MAX_BYTES });
  let form: FormData;
  try {
    form = await parseMultipartFormData(request, async (part) => {
      if (part.filename === undefined) return part.name === FILES_FIELD ? null : text(part);
      const name = part.filename;
      // An empty file input still sends a part with no name.
      if (part.name !== FILES_FIELD || !name) return drain(part.data);
      fileNames.push(name);
      files += 1;
      const type = attachmentTypeOf(name);
      if (files > ATTACHMENTS_PER_MESSAGE) return drain(part.data);
      if (!type) {
        fileErrors.push(errorMessage('attachment_type', { fileName: name }));
        return drain(part.data);
      }
      const upload = await uploadPart(supabase, folder, name, type, part.data);
      if ('error' in upload) fileErrors.push(upload.error);
      else uploads.push(upload);
      return null;
    });
  } catch (err) {
    await removeUploads(supabase, uploads);
    log.warn('attachments: unreadable form', { message: (err as Error).message });
    throw errorResponse(request, 'bad_request');
  }
  if (files > ATTACHMENTS_PER_MESSAGE) fileErrors.unshift(errorMessage('too_many_attachments'));
  // For the backend_unavailable page: the text, never the files (kept-form.server.ts).
  rememberForm(request, form);
  if (fileErrors.length && !keepAccepted) {
    await removeUploads(supabase, uploads);
    return { form, uploads: [], fileErrors, fileNames };
  }
  return { form, uploads, fileErrors, fileNames };
}

/** One file streamed to storage; over the limit, the rest of it is read and dropped. */
async function uploadPart(
  supabase: Supabase,
  folder: UploadFolder,
  fileName: string,
  mimeType: string,
  data: AsyncIterable<Uint8Array>,
): Promise<Upload | { error: string }> {
  const id = crypto.randomUUID();
  const storageName = safeStorageName(fileName);
  const key = `${folder.uploaderId}/${folder.workspaceId}/${folder.ticketId}/${id}/${storageName}`;
  const chunks = data[Symbol.asyncIterator]();
  let size = 0;
  let tooLarge = false;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) {
        done = true;
        return controller.close();
      }
      size += next.value.byteLength;
      if (size > ATTACHMENT_MAX_BYTES) {
        tooLarge = true;
        return controller.error(new Error('attachment_too_large'));
      }
      controller.enqueue(next.value);
    },
  });
  const { error } = await supabase.storage.from(ATTACHMENTS_BUCKET).upload(key, body, { contentType: mimeType });
  // Whatever storage did not read is read now: the next part comes after it.
  while (!done) done = !!(await chunks.next()).done;
  // storage-api answers 400 with the real status in the body's statusCode (reference A0).
  const status = (error as { status?: number } | null)?.status;
  const code = Number((error as { statusCode?: string } | null)?.statusCode ?? status);
  if (tooLarge || code === 413) return { error: errorMessage('attachment_too_large', { fileName }) };
  if (code === 415) return { error: errorMessage('attachment_type', { fileName }) };
  // The bucket's policy refused: the uploader already holds as many unsent files as they may (40_attachments.sql).
  if (code === 403) return { error: errorMessage('too_many_attempts') };
  if (error) {
    log.error('attachments: upload failed', { status, message: error.message });
    return { error: errorMessage(status ? 'unexpected' : 'backend_unavailable') };
  }
  return { id, key, file_name: fileName, storage_name: storageName };
}

async function drain(data: AsyncIterable<Uint8Array>): Promise<null> {
  for await (const _ of data);
  return null;
}

/** Objects of a post that did not happen. */
export async function removeUploads(supabase: Supabase, uploads: Upload[]): Promise<void> {
  if (!uploads.length) return;
  const { error } = await supabase.storage.from(ATTACHMENTS_BUCKET).remove(uploads.map((u) => u.key));
  if (error) log.error('attachments: could not remove the uploads of a failed post', { message: error.message });
}

/** create_ticket's and post_message's p_attachments. */
export const attachmentsArg = (uploads: Upload[]) =>
  uploads.map(({ id, file_name, storage_name }) => ({ id, file_name, storage_name }));

/**
 * GET …/files/:id: the file of one of the ticket's messages (RLS decides: a note's file is not found
 * for a requester), streamed by the app from storage as the user, never a link to storage: storage-api
 * sends an object's stored type and no `nosniff`, and a copy through its API may set any type
 * (docs/decisions/036-files-the-database-checks.md). Here every file is a download
 * (`Content-Disposition: attachment`, `nosniff`, a sandboxing CSP) typed by the product's rules for its
 * name, so nothing an upload holds runs as a page; an <img> still shows an image's thumbnail.
 * `repliesOnly` for the requester's pages.
 */
export async function sendFile(
  request: Request,
  supabase: Supabase,
  o: { id: string | undefined; ticketId: string; repliesOnly: boolean },
): Promise<Response> {
  if (!o.id || !UUID_RE.test(o.id)) throw errorResponse(request, 'not_found');
  let query = supabase
    .from('attachments')
    .select('path, file_name, mime_type, messages!inner(kind)')
    .eq('id', o.id)
    .eq('ticket_id', o.ticketId);
  if (o.repliesOnly) query = query.eq('messages.kind', 'reply');
  const { data: file, error } = await query.maybeSingle<{ path: string; file_name: string; mime_type: string }>();
  if (error) throwDbError(request, error, 'attachment');
  if (!file) throw errorResponse(request, 'not_found');
  const { data: body, error: readError } = await supabase.storage
    .from(ATTACHMENTS_BUCKET)
    .download(file.path)
    .asStream();
  if (readError || !body) {
    const status = (readError as { status?: number } | null)?.status;
    log.error('attachments: file unreadable', { status, message: readError?.message });
    throw errorResponse(request, status && status < 500 ? 'not_found' : 'backend_unavailable');
  }
  const headers = responseHeaders(request, {
    'Content-Type': downloadType(file.file_name, file.mime_type),
    'Content-Disposition': attachmentDisposition(file.file_name),
    // A recorded file never changes (40_attachments.sql); the reader's own cache only.
    'Cache-Control': 'private, max-age=3600',
  });
  applySecurityHeaders(headers, "default-src 'none'; sandbox");
  return new Response(body, { headers });
}
