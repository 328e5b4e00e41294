// The local mail catcher (stands in for the Mailpit that `supabase start` runs): keeps every
// email the stack sends, prints one line per email with its code, serves an inbox and Mailpit's API.
import http from 'node:http';
import type { Mailer, OutgoingMail } from '../service.ts';
import { handleApi, MailApiError, sendJson } from './api.ts';
import { inboxPage, messagePage } from './inbox.ts';
import { codeIn, MailStore } from './store.ts';

export interface MailOptions {
  /** 0 lets the OS pick a port (tests). */
  port: number;
  host?: string;
  /** The stack's data dir; mail lives in <dir>/mail. */
  dir: string;
  log?: (line: string) => void;
}

export interface RunningMail {
  url: string;
  mailer: Mailer;
  stop(): Promise<void>;
}

export async function startMail(options: MailOptions): Promise<RunningMail> {
  const store = new MailStore(options.dir);
  const log = options.log ?? ((line: string) => console.log(line));
  const deliver = (mail: OutgoingMail) => {
    const m = store.add(mail);
    const code = codeIn(m.text);
    log(`[mail] to ${m.to.map((t) => t.email).join(', ')}${code ? ` · code ${code}` : ''} · "${m.subject}"`);
    return m;
  };

  const html = (res: http.ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; form-action 'self'" });
    res.end(body);
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mail');
    try {
      if (url.pathname.startsWith('/api/')) {
        if (await handleApi(store, deliver, req, res, url)) return;
        throw new MailApiError(404, 'not found');
      }
      if (req.method === 'GET' && url.pathname === '/') return html(res, 200, inboxPage(store.list()));
      const view = /^\/view\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
      if (req.method === 'GET' && view) {
        const m = store.get(view[1]);
        if (!m) return html(res, 404, inboxPage([]).replace('No mail yet.', 'That message does not exist.'));
        store.markRead(m);
        return html(res, 200, messagePage(m));
      }
      if (req.method === 'POST' && url.pathname === '/clear') {
        store.delete();
        res.writeHead(303, { location: '/' });
        return res.end();
      }
      throw new MailApiError(404, 'not found');
    } catch (err) {
      if (res.headersSent) return res.destroy();
      if (err instanceof MailApiError) return sendJson(res, err.status, { error: err.message });
      log(`[mail] ${req.method} ${url.pathname} failed: ${(err as Error).stack ?? err}`);
      sendJson(res, 500, { error: 'internal error' });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    mailer: { send: async (mail) => void deliver(mail) },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
