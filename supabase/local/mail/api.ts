// The Mailpit JSON API subset (v1, as in Mailpit v1.22 server/apiv1) that tools written for
// `supabase start` use, with Mailpit's field names, status codes and error bodies.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendJson as json } from '../http.ts';
import { allParts, MimeError, partBody, scanMessage } from './mime.ts';
import { search } from './search.ts';
import {
  isId,
  snippetOf,
  type Address,
  type AttachmentInfo,
  type MailStore,
  type NewMail,
  type StoredMail,
} from './store.ts';

/** An error answered the way Mailpit answers it: plain text, or JSON `{"Error": "…"}` where Mailpit uses JSON. */
export class MailpitError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly format: 'text' | 'json' = 'text',
  ) {
    super(message);
  }
}

// Mailpit: fourOFour() answers a plain "404 page not found".
export const notFound = () => new MailpitError(404, '404 page not found');

/** The one place error responses are written. */
export function sendError(res: ServerResponse, err: MailpitError) {
  // `Error` is Mailpit's key; `error` too, for callers written against the usual lower-case shape.
  if (err.format === 'json') return sendJson(res, err.status, { Error: err.message, error: err.message });
  res.writeHead(err.status, { 'content-type': 'text/plain; charset=utf-8', 'referrer-policy': 'no-referrer' });
  res.end(err.message);
}

/** Mailpit's JSON: plain `application/json`, and json.Encoder ends it with a newline. */
const sendJson = (res: ServerResponse, status: number, body: unknown) =>
  json(res, status, body, { 'content-type': 'application/json' }, { newline: true });

function sendOk(res: ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('ok');
}

const MAX_BODY = 25 * 1024 * 1024;

const readText = async (req: IncomingMessage) =>
  (await readBody(req, MAX_BODY, () => new MailpitError(413, 'request body too large', 'json'))).toString('utf8');

const address = (a: Address) => ({ Name: a.name, Address: a.email });

// Mailpit: storage.MessageSummary
function summary(m: StoredMail) {
  return {
    ID: m.id,
    MessageID: m.messageId,
    Read: m.read,
    From: address(m.from),
    To: m.to.map(address),
    Cc: m.cc.map(address),
    Bcc: m.bcc.map(address),
    ReplyTo: m.replyTo.map(address),
    Subject: m.subject,
    Created: m.created,
    Tags: m.tags,
    Size: m.size,
    Attachments: m.attachments.filter((a) => !a.inline).length,
    Snippet: snippetOf(m),
  };
}

// Mailpit: storage.Message
function message(m: StoredMail) {
  return {
    ID: m.id,
    MessageID: m.messageId,
    From: address(m.from),
    To: m.to.map(address),
    Cc: m.cc.map(address),
    Bcc: m.bcc.map(address),
    ReplyTo: m.replyTo.map(address),
    ReturnPath: m.from.email, // Mailpit: the From address when there is no Return-Path header
    Subject: m.subject,
    ListUnsubscribe: listUnsubscribe(m),
    Date: m.created,
    Tags: m.tags,
    Text: m.text,
    HTML: m.html,
    Size: m.size,
    Inline: m.attachments.filter((a) => a.inline).map(attachment),
    Attachments: m.attachments.filter((a) => !a.inline).map(attachment),
  };
}

// Mailpit: storage.Attachment
const attachment = (a: AttachmentInfo) => ({
  PartID: a.partId,
  FileName: a.fileName,
  ContentType: a.contentType,
  ContentID: a.contentId,
  Size: a.size,
});

// Mailpit: the List-Unsubscribe header and the <…> links in it.
function listUnsubscribe(m: StoredMail) {
  const header = m.headers['List-Unsubscribe']?.[0] ?? '';
  return {
    Header: header,
    Links: [...header.matchAll(/<([^>]+)>/g)].map((x) => x[1]),
    Errors: '',
    HeaderPost: m.headers['List-Unsubscribe-Post']?.[0] ?? '',
  };
}

/** Mailpit's /message/{ID}/headers: every header and its values; a message sent over HTTP gets the basic ones. */
function headersOf(m: StoredMail): Record<string, string[]> {
  if (Object.keys(m.headers).length) return m.headers;
  const list = (as: Address[]) => as.map((a) => (a.name ? `"${a.name}" <${a.email}>` : a.email)).join(', ');
  return {
    From: [list([m.from])],
    To: [list(m.to)],
    Subject: [m.subject],
    'Message-ID': [`<${m.messageId}>`],
    Date: [new Date(m.created).toUTCString()],
  };
}

/** Mailpit's getStartLimit: start ≥ 0 (default 0), limit ≥ 0 (default 50), optional `before` date. */
function startLimit(url: URL) {
  const int = (name: string) => {
    const s = url.searchParams.get(name) ?? '';
    return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
  };
  const start = Math.max(0, int('start') ?? 0);
  const l = int('limit');
  const limit = l !== undefined && l > -1 ? l : 50;
  const before = Date.parse(url.searchParams.get('before') ?? '');
  return { start, limit, before: Number.isNaN(before) ? undefined : before };
}

const olderThan = (before: number | undefined) => (m: StoredMail) =>
  before === undefined || Date.parse(m.created) < before;

// Mailpit: MessagesSummary — total/unread/tags over the whole mailbox, messages_count over the result.
function summaries(store: MailStore, page: StoredMail[], matched: number, start: number) {
  const all = store.list();
  return {
    total: all.length,
    unread: all.filter((m) => !m.read).length,
    count: page.length,
    messages_count: matched,
    start,
    tags: store.tags(),
    messages: page.map(summary),
  };
}

function searchQuery(url: URL): string {
  const query = (url.searchParams.get('query') ?? '').trim();
  if (!query) throw new MailpitError(400, 'Error: no search query');
  return query;
}

function parseJson(raw: string, format: 'text' | 'json'): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new MailpitError(400, 'request body is not valid JSON', format);
  }
}

const isEmail = (v: unknown): v is string => typeof v === 'string' && /^[^\s@<>,;]+@[^\s@<>,;]+$/.test(v.trim());

/** Mailpit's send API body: `{From: {Email, Name}, To: [{Email, Name}], Cc, Bcc: [email], ReplyTo, Subject, Text, HTML, Tags}`. */
export function parseSend(raw: string): NewMail {
  const body = parseJson(raw, 'json');
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new MailpitError(400, 'request body must be a JSON object', 'json');
  const b = body as Record<string, unknown>;
  const str = (v: unknown, field: string) => {
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw new MailpitError(400, `${field} must be a string`, 'json');
    return v;
  };
  const people = (v: unknown, field: string) => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw new MailpitError(400, `${field} must be an array of {"Email", "Name"}`, 'json');
    return v.map((p) => {
      const email = typeof p === 'string' && field === 'Bcc' ? p : (p as { Email?: unknown })?.Email;
      // Mailpit: every address must parse, else "invalid To address: …"
      if (!isEmail(email))
        throw new MailpitError(
          400,
          `invalid ${field} address: ${typeof email === 'string' ? email : JSON.stringify(email ?? null)}`,
          'json',
        );
      return {
        email: email.trim(),
        name: typeof p === 'object' ? str((p as { Name?: unknown }).Name, `${field}.Name`) : '',
      };
    });
  };

  const from = b.From as { Email?: unknown; Name?: unknown } | undefined;
  if (!from || typeof from !== 'object' || from.Email === undefined || from.Email === '')
    throw new MailpitError(400, 'From.Email is required', 'json');
  if (!isEmail(from.Email)) throw new MailpitError(400, `invalid From address: ${String(from.Email)}`, 'json');
  const to = people(b.To, 'To');
  const cc = people(b.Cc, 'Cc');
  const bcc = people(b.Bcc, 'Bcc');
  // Mailpit: a message needs at least one recipient in To, Cc or Bcc.
  if (!to.length && !cc.length && !bcc.length)
    throw new MailpitError(400, 'To is required: at least one recipient {"Email": "…"} (or Cc, Bcc)', 'json');
  if (
    b.Tags !== undefined &&
    b.Tags !== null &&
    (!Array.isArray(b.Tags) || b.Tags.some((t) => typeof t !== 'string'))
  ) {
    throw new MailpitError(400, 'Tags must be an array of strings', 'json');
  }
  return {
    from: { name: str(from.Name, 'From.Name'), email: from.Email.trim() },
    to,
    cc,
    bcc,
    replyTo: people(b.ReplyTo, 'ReplyTo'),
    subject: str(b.Subject, 'Subject'),
    text: str(b.Text, 'Text'),
    html: str(b.HTML, 'HTML'),
    tags: (b.Tags as string[] | undefined) ?? [],
  };
}

/** An attachment's bytes, decoded from the raw message it came in (mime.ts); undefined without one. */
function attachmentBytes(store: MailStore, m: StoredMail, a: AttachmentInfo): Buffer | undefined {
  const raw = store.raw(m);
  if (!raw) return undefined;
  try {
    const p = allParts(scanMessage(raw)).find((x) => x.id === a.partId);
    return p && partBody(raw, p);
  } catch (err) {
    if (err instanceof MimeError) return undefined; // parsed the slow way, numbered as mailparser counts
    throw err;
  }
}

/** Answers /api/…; throws MailpitError for what Mailpit refuses. */
export async function handleApi(
  store: MailStore,
  deliver: (m: NewMail) => StoredMail,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const p = url.pathname.replace(/\/+$/, '');
  const method = req.method ?? 'GET';
  const allow = (...methods: string[]) => {
    if (!methods.includes(method)) throw new MailpitError(405, 'Method Not Allowed');
  };

  if (p === '/api/v1/messages') {
    allow('GET', 'PUT', 'DELETE');
    if (method === 'GET') {
      const { start, limit, before } = startLimit(url);
      const all = store.list().filter(olderThan(before));
      // Mailpit: limit 0 lists everything.
      const page = limit > 0 ? all.slice(start, start + limit) : all;
      return sendJson(res, 200, summaries(store, page, store.list().length, start));
    }
    if (method === 'PUT') {
      // Mailpit: {Read, IDs}; no IDs marks every message.
      const body = parseJson(await readText(req), 'text') as { Read?: unknown; IDs?: unknown } | null;
      const read = body?.Read === true;
      const ids = Array.isArray(body?.IDs) && body.IDs.length ? body.IDs.map(String) : undefined;
      for (const m of ids ? ids.map((id) => store.get(id)) : store.list()) if (m) store.setRead(m, read);
      return sendOk(res);
    }
    // DELETE. Mailpit: a body without IDs (none, empty, or not JSON) deletes every message.
    let ids: string[] | undefined;
    try {
      const body = JSON.parse(await readText(req)) as { IDs?: unknown } | null;
      if (Array.isArray(body?.IDs) && body.IDs.length) ids = body.IDs.map(String);
    } catch (err) {
      if (err instanceof MailpitError) throw err;
    }
    store.delete(ids);
    return sendOk(res);
  }

  if (p === '/api/v1/search') {
    allow('GET', 'DELETE');
    const found = search(store.list(), searchQuery(url));
    if (method === 'DELETE') {
      store.delete(found.map((m) => m.id));
      return sendOk(res);
    }
    const { start, limit, before } = startLimit(url);
    const matched = found.filter(olderThan(before));
    return sendJson(res, 200, summaries(store, matched.slice(start, start + limit), matched.length, start));
  }

  const one = /^\/api\/v1\/message\/([^/]+)$/.exec(p);
  if (one) {
    allow('GET');
    let id = one[1];
    if (id === 'latest') {
      // Mailpit: "latest" is the newest message, or the newest matching ?query=.
      const query = (url.searchParams.get('query') ?? '').trim();
      const newest = (query ? search(store.list(), query) : store.list())[0];
      if (!newest) throw new MailpitError(404, 'Message not found');
      id = newest.id;
    }
    const m = isId(id) ? store.get(id) : undefined;
    if (!m) throw notFound();
    store.setRead(m); // Mailpit: fetching a message marks it read
    return sendJson(res, 200, message(m));
  }

  const headers = /^\/api\/v1\/message\/([^/]+)\/headers$/.exec(p);
  if (headers) {
    allow('GET');
    const m = isId(headers[1]) ? store.get(headers[1]) : undefined;
    if (!m) throw notFound();
    return sendJson(res, 200, headersOf(m));
  }

  const part = /^\/api\/v1\/message\/([^/]+)\/part\/([\d.]+)$/.exec(p);
  if (part) {
    allow('GET');
    const m = isId(part[1]) ? store.get(part[1]) : undefined;
    const a = m?.attachments.find((x) => x.partId === part[2]);
    const bytes = m && a ? attachmentBytes(store, m, a) : undefined;
    if (!a || !bytes) throw notFound();
    // Mailpit: the part's bytes with its Content-Type, named by its file name (else its Content-ID).
    res.writeHead(200, {
      'content-type': a.contentType,
      'content-disposition': `filename="${(a.fileName || a.contentId).replace(/[^\x20-\x7e]|["\\]/g, '_')}"`,
      'content-length': bytes.length,
      'x-content-type-options': 'nosniff',
    });
    return void res.end(bytes);
  }

  if (p === '/api/v1/send') {
    allow('POST');
    // Only JSON: a form or text/plain body is what a cross-site page can post without a preflight.
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
      throw new MailpitError(415, 'Content-Type must be application/json', 'json');
    const m = deliver(parseSend(await readText(req)));
    return sendJson(res, 200, { ID: m.id });
  }

  throw notFound();
}
