// The Mailpit JSON API subset (v1) that tools written for `supabase start` use, with Mailpit's field names.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OutgoingMail } from '../service.ts';
import { search, type MailStore, type StoredMail } from './store.ts';

export class MailApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function readBody(req: IncomingMessage, limit = 10 * 1024 * 1024): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new MailApiError(413, 'request body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const address = (a: { name?: string; email: string }) => ({ Name: a.name ?? '', Address: a.email });

function summary(m: StoredMail) {
  return {
    ID: m.id,
    MessageID: m.messageId,
    Read: m.read,
    From: address(m.from),
    To: m.to.map(address),
    Cc: [],
    Bcc: [],
    ReplyTo: [],
    Subject: m.subject,
    Created: m.created,
    Tags: m.tags,
    Size: Buffer.byteLength(m.html) + Buffer.byteLength(m.text),
    Attachments: 0,
    Snippet: m.text.replace(/\s+/g, ' ').trim().slice(0, 250),
  };
}

function page(all: StoredMail[], total: StoredMail[], url: URL) {
  const start = Math.max(0, Number(url.searchParams.get('start')) || 0);
  const limit = Math.max(1, Number(url.searchParams.get('limit')) || 50);
  const messages = all.slice(start, start + limit).map(summary);
  // Mailpit: total/unread over the mailbox; messages_count over the (searched) result.
  return { total: total.length, unread: total.filter((m) => !m.read).length, count: messages.length, messages_count: all.length, start, tags: [], messages };
}

/** Mailpit's send API body: `{From: {Email, Name}, To: [{Email, Name}], Subject, Text, HTML, Tags}`. */
function parseSend(raw: string): OutgoingMail {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new MailApiError(400, 'request body is not valid JSON');
  }
  const from = body?.From as { Email?: unknown; Name?: unknown } | undefined;
  const to = body?.To;
  if (!from || typeof from.Email !== 'string' || !from.Email.includes('@')) throw new MailApiError(400, 'From.Email is required');
  if (!Array.isArray(to) || !to.length || to.some((t) => typeof t?.Email !== 'string' || !t.Email.includes('@'))) {
    throw new MailApiError(400, 'To must list at least one recipient with an Email');
  }
  const text = typeof body.Text === 'string' ? body.Text : '';
  const html = typeof body.HTML === 'string' ? body.HTML : '';
  if (!text && !html) throw new MailApiError(400, 'Text or HTML is required');
  return {
    from: { name: typeof from.Name === 'string' ? from.Name : '', email: from.Email },
    to: to.map((t: { Email: string; Name?: unknown }) => ({ name: typeof t.Name === 'string' ? t.Name : '', email: t.Email })),
    subject: typeof body.Subject === 'string' ? body.Subject : '',
    text,
    html,
    tags: Array.isArray(body.Tags) ? body.Tags.map(String) : [],
  };
}

/** Answers /api/v1/… ; returns false when the path is not part of the API. */
export async function handleApi(store: MailStore, deliver: (m: OutgoingMail) => StoredMail, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const p = url.pathname;
  if (req.method === 'GET' && p === '/api/v1/messages') return sendJson(res, 200, page(store.list(), store.list(), url)), true;
  if (req.method === 'GET' && p === '/api/v1/search') {
    const query = url.searchParams.get('query');
    if (!query) throw new MailApiError(400, 'no search query');
    return sendJson(res, 200, page(search(store.list(), query), store.list(), url)), true;
  }
  const one = /^\/api\/v1\/message\/([A-Za-z0-9_-]+)$/.exec(p);
  if (req.method === 'GET' && one) {
    const m = store.get(one[1]);
    if (!m) throw new MailApiError(404, 'message not found');
    store.markRead(m);
    return (
      sendJson(res, 200, {
        ...summary(m),
        ReturnPath: m.from.email,
        Date: m.created,
        Text: m.text,
        HTML: m.html,
        Inline: [],
        Attachments: [],
      }),
      true
    );
  }
  if (req.method === 'DELETE' && p === '/api/v1/messages') {
    const raw = (await readBody(req)).trim();
    let ids: string[] | undefined;
    if (raw) {
      try {
        const parsed = JSON.parse(raw);
        if (Array.isArray(parsed?.IDs) && parsed.IDs.length) ids = parsed.IDs.map(String);
      } catch {
        throw new MailApiError(400, 'request body is not valid JSON');
      }
    }
    store.delete(ids); // Mailpit: no IDs deletes every message
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
    return true;
  }
  if (req.method === 'POST' && p === '/api/v1/send') {
    const m = deliver(parseSend(await readBody(req)));
    return sendJson(res, 200, { ID: m.id }), true;
  }
  return false;
}
