// The local mail catcher (stands in for the Mailpit that `supabase start` runs): keeps every
// email the stack sends, prints one line per email with its code, serves an inbox and Mailpit's API.
import http from 'node:http';
import type { Mailer } from '../service.ts';
import { hostAllowed, MISDIRECTED } from '../trust.ts';
import { handleApi, MailpitError, sendError } from './api.ts';
import { inboxPage, messagePage, notFoundPage } from './inbox.ts';
import { search } from './search.ts';
import { parseRaw, receivedSummary, startSmtp } from './smtp.ts';
import { codeIn, type Envelope, isId, MailStore, type NewMail } from './store.ts';

export interface MailOptions {
  /** 0 lets the OS pick a free port (tests); `url` reports the one chosen. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The stack's data dir; mail lives in <dir>/mail. */
  dir: string;
  /** One line per email; default console.log. */
  log?: (line: string) => void;
  /** Also take mail over SMTP on this port (0: any free one); none when undefined. */
  smtpPort?: number;
  /** Host names answered besides loopback ones (trust.ts). */
  allowedHosts?: string[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Why a request is refused before it is routed: a Host that isn't ours (a DNS-rebinding page reading
 * codes), or a write a page on another origin could make without a preflight (a fake "sign-in code"
 * mail posted as text/plain). Same-origin writes (the inbox's own form) and tools (no Origin) pass.
 */
function refusal(req: http.IncomingMessage, api: boolean, allowedHosts: string[]): MailpitError | undefined {
  const format = api ? 'json' : 'text';
  if (!hostAllowed(req.headers.host, allowedHosts))
    return new MailpitError(MISDIRECTED.status, MISDIRECTED.message(req.headers.host), format);
  if (SAFE_METHODS.has(req.method ?? 'GET')) return undefined;
  // A browser says where a request comes from in Sec-Fetch-Site; older ones only in Origin, which
  // is "null" for the inbox's own form (its pages send no referrer).
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  const sameOrigin = site ? site === 'same-origin' || site === 'none' : origin === `http://${req.headers.host}`;
  if ((site !== undefined || origin !== undefined) && !sameOrigin)
    return new MailpitError(403, `cross-origin request refused (Origin: ${origin ?? 'none'})`, format);
  return undefined;
}

export interface RunningMail {
  url: string;
  /** The SMTP port, when it listens. */
  smtpPort?: number;
  mailer: Mailer;
  stop(): Promise<void>;
}

// The inbox never runs scripts or loads from elsewhere, except images inside an email's HTML.
const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src * data:; frame-src 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export async function startMail(options: MailOptions): Promise<RunningMail> {
  const host = options.host ?? '127.0.0.1';
  const store = new MailStore(options.dir, parseRaw);
  const log = options.log ?? ((line: string) => console.log(line));
  const logMail = (to: string[], subject: string, code: string | undefined) =>
    log(`[mail] to ${to.join(', ')}${code ? ` · code ${code}` : ''} · "${subject.replace(/\s+/g, ' ')}"`);

  const deliver = (mail: NewMail) => {
    const m = store.add(mail);
    logMail(
      [...m.to, ...m.cc, ...m.bcc].map((t) => t.email),
      m.subject,
      codeIn(m),
    );
    return m;
  };
  const receive = (raw: Buffer, envelope: Envelope) => {
    store.receive(raw, envelope);
    const { to, subject, ...bodies } = receivedSummary(raw, envelope);
    logMail(to, subject, codeIn(bodies));
  };

  const html = (res: http.ServerResponse, status: number, body: string) => {
    res.writeHead(status, HTML_HEADERS);
    res.end(body);
  };

  const route = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://mail.local');
    const refused = refusal(req, url.pathname.startsWith('/api/'), options.allowedHosts ?? []);
    if (refused) throw refused;
    await store.settle(); // what came over SMTP is parsed before anything reads the mailbox
    if (url.pathname.startsWith('/api/')) return handleApi(store, deliver, req, res, url);
    if ((req.method === 'GET' || req.method === 'HEAD') && url.pathname === '/') {
      const query = (url.searchParams.get('q') ?? '').trim();
      const all = store.list();
      return html(res, 200, inboxPage(query ? search(all, query) : all, { query, total: all.length }));
    }
    const view = /^\/view\/([^/]+)$/.exec(url.pathname);
    if ((req.method === 'GET' || req.method === 'HEAD') && view) {
      const m = isId(view[1]) ? store.get(view[1]) : undefined;
      if (!m) return html(res, 404, notFoundPage());
      store.setRead(m);
      return html(res, 200, messagePage(m, { filesLinked: store.hasRaw(m) }));
    }
    if (req.method === 'POST' && url.pathname === '/clear') {
      req.resume(); // the form body carries nothing we need
      store.delete();
      res.writeHead(303, { location: '/' });
      return void res.end();
    }
    return html(res, 404, notFoundPage());
  };

  const server = http.createServer((req, res) => {
    // Every request is answered on its own: a bad one gets 4xx/500, never a crashed catcher.
    route(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof MailpitError) return sendError(res, err);
      log(`[mail] ${req.method} ${req.url} failed: ${(err as Error)?.stack ?? err}`);
      sendError(res, new MailpitError(500, 'internal error', 'json'));
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      server.on('error', (err) => log(`[mail] server error: ${err.message}`));
      resolve();
    });
  }).catch((err) => {
    store.close();
    throw err;
  });
  const { port } = server.address() as { port: number };
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const stopHttp = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  const smtp =
    options.smtpPort === undefined
      ? undefined
      : await startSmtp({ port: options.smtpPort, host, receive, log }).catch(async (err) => {
          await stopHttp();
          store.close();
          throw err;
        });

  return {
    url: `http://${urlHost}:${port}`,
    smtpPort: smtp?.port,
    mailer: { send: async (mail) => void deliver(mail) },
    stop: async () => {
      await smtp?.stop();
      await stopHttp();
      store.close();
    },
  };
}
