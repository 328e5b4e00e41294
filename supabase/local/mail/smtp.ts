// The catcher's SMTP side, as Mailpit's (the CLI's mail catcher takes SMTP on 54325): any client may
// send, with or without AUTH, no TLS; every message is parsed and stored like one sent over the
// HTTP API, with its threading and unsubscribe headers, both bodies and its attachments listed.
import type { AddressObject, ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { NewMail } from './store.ts';

export interface RunningSmtp {
  port: number;
  stop(): Promise<void>;
}

const MAX_SIZE = 25 * 1024 * 1024; // the HTTP send API's body limit

const people = (field: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(field) ? field : field ? [field] : [])
    .flatMap((a) => a.value)
    .filter((a) => a.address)
    .map((a) => ({ name: a.name ?? '', email: a.address!.toLowerCase() }));

const bare = (id: string) => id.trim().replace(/^<|>$/g, '');

/** What the store keeps of a parsed message; envelope recipients not in To or Cc are its Bcc. */
export function fromParsed(parsed: ParsedMail, envelope: { from?: string; to: string[] }): NewMail {
  const to = people(parsed.to);
  const cc = people(parsed.cc);
  const shown = new Set([...to, ...cc].map((a) => a.email));
  const from = people(parsed.from)[0] ?? { name: '', email: (envelope.from ?? '').toLowerCase() };
  const headers: Record<string, string[]> = {};
  for (const { key, line } of parsed.headerLines) {
    const name = line.slice(0, line.indexOf(':')).trim() || key;
    (headers[name] ??= []).push(line.slice(line.indexOf(':') + 1).trim());
  }
  return {
    from,
    to,
    cc,
    bcc: envelope.to
      .map((e) => e.toLowerCase())
      .filter((e) => !shown.has(e))
      .map((email) => ({ email })),
    replyTo: people(parsed.replyTo),
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : '',
    messageId: parsed.messageId ? bare(parsed.messageId) : undefined,
    headers,
    attachments: parsed.attachments.map((a, i) => ({
      partId: String(i + 2), // part 1 is the body, as Mailpit numbers them
      fileName: a.filename ?? '',
      contentType: a.contentType,
      contentId: a.contentId ? bare(a.contentId) : '',
      size: a.size,
      inline: a.contentDisposition === 'inline' && Boolean(a.contentId),
    })),
  };
}

export async function startSmtp(opts: {
  port: number;
  host: string;
  deliver: (mail: NewMail) => void;
  log: (line: string) => void;
}): Promise<RunningSmtp> {
  const server = new SMTPServer({
    name: 'tend-mail',
    banner: 'Tend local mail catcher',
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    // Mailpit --smtp-auth-accept-any: a client configured with credentials is let in.
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? 'any' }),
    size: MAX_SIZE,
    logger: false,
    onData(stream, session, callback) {
      // mailparser and the MIME libraries under it load with the first message, not at every start.
      import('mailparser')
        .then(({ simpleParser }) => simpleParser(stream))
        .then((parsed) => {
          if ((stream as { sizeExceeded?: boolean }).sizeExceeded) {
            const err = Object.assign(new Error('Message exceeds the fixed maximum message size'), {
              responseCode: 552,
            });
            return callback(err);
          }
          const mailFrom = session.envelope.mailFrom;
          opts.deliver(
            fromParsed(parsed, {
              from: mailFrom ? mailFrom.address : undefined,
              to: session.envelope.rcptTo.map((r) => r.address),
            }),
          );
          callback();
        })
        .catch((err: Error) => {
          opts.log(`[mail] SMTP message refused: ${err.message}`);
          callback(Object.assign(new Error('Message could not be parsed'), { responseCode: 554 }));
        });
    },
  });
  server.on('error', (err) => opts.log(`[mail] SMTP: ${err.message}`));
  await new Promise<void>((resolve, reject) => {
    const s = server.server;
    s.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      s.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
