// file-link: a file of a reply's email that was too big to go with it (notify links it instead), sent to
// whoever has the link, without signing in, until the link's expiry (7 days), while the file exists
// (docs/decisions/047-emails-that-carry-the-conversation.md). GET ?t=<token> (tokens.ts fileLinkToken).
// Always a download, as the app sends files (docs/decisions/036-files-the-database-checks.md).
import { ATTACHMENTS_BUCKET, attachmentDisposition, downloadType } from '../_shared/attachment-rules.ts';
import { admin, json } from '../_shared/platform.ts';
import { readFileLinkToken } from '../_shared/tokens.ts';

const secret = () => Deno.env.get('EMAIL_TOKEN_SECRET') || Deno.env.get('SUPABASE_SERVICE_ROLE_KEY') || '';

Deno.serve(async (req) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'method not allowed' });
  const link = await readFileLinkToken(secret(), new URL(req.url).searchParams.get('t') ?? '');
  if ('error' in link)
    return json(link.error === 'expired' ? 410 : 404, {
      error: link.error === 'expired' ? 'This link has expired. Open the conversation to get the file.' : 'not found',
    });
  const db = admin();
  const { data: file, error } = await db
    .from('attachments')
    .select('path, file_name, mime_type, messages!inner(kind)')
    .eq('id', link.attachmentId)
    .eq('messages.kind', 'reply')
    .maybeSingle();
  if (error) throw error;
  // Removed since (or never a public reply's): the link is dead.
  if (!file) return json(404, { error: 'not found' });
  const { data: body, error: readError } = await db.storage.from(ATTACHMENTS_BUCKET).download(file.path);
  if (readError || !body) return json(502, { error: 'the file could not be read; try again' });
  return new Response(req.method === 'HEAD' ? null : body.stream(), {
    headers: {
      'Content-Type': downloadType(file.file_name, file.mime_type),
      'Content-Length': String(body.size),
      'Content-Disposition': attachmentDisposition(file.file_name),
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, max-age=3600',
    },
  });
});
