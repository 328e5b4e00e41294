// The catcher's SMTP side, as Mailpit's (the CLI's mail catcher takes SMTP on 54325): any client may
// send, with or without AUTH, no TLS; every message is kept as it came (its files are read from
// there) and parsed when the mailbox is first read (store.ts settle) into what one sent over the HTTP
// API holds, with its threading and unsubscribe headers, both bodies and its attachments listed.
import type { Socket } from 'node:net';
import type { AddressObject, Attachment, ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import {
  allParts,
  decodeQuotedPrintable,
  messageFields,
  MimeError,
  type MimePart,
  PART_HEADER,
  partBody,
  partFields,
  readPartHeader,
  scanMessage,
  skeleton,
} from './mime.ts';
import type { Envelope, NewMail } from './store.ts';

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
export function fromParsed(parsed: ParsedMail, envelope: Envelope): NewMail {
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
    attachments: parsed.attachments.map((a, i) => {
      // From a skeleton (mime.ts): the part's own number, and the size of a body left out.
      const mark = readPartHeader(a.headers.get(PART_HEADER));
      return {
        partId: mark?.id ?? String(i + 2), // else: part 1 is the body, as Mailpit numbers them
        fileName: a.filename ?? '',
        contentType: a.contentType,
        contentId: a.contentId ? bare(a.contentId) : '',
        size: mark?.size ?? a.size,
        inline: a.contentDisposition === 'inline' && Boolean(a.contentId),
      };
    }),
  };
}

// mailparser and the MIME libraries under it load with the first message, not at every start; once:
// an import() per message went through the module loader (and tsx's hooks) every time.
let parserModule: Promise<typeof import('mailparser')> | undefined;
const mailparser = () => (parserModule ??= import('mailparser'));

/**
 * A message as it came over SMTP, for the store: mailparser reads its headers and bodies from the
 * skeleton (mime.ts: the files' bodies left out, their sizes counted), or from the whole message when
 * the scan doesn't take it on; the raw message is kept beside.
 */
export async function parseRaw(raw: Buffer, envelope: Envelope): Promise<NewMail> {
  try {
    return await parseWhole(raw, envelope);
  } catch {
    // Acknowledged with a 250 already: never dropped. What can be read without mailparser, as a relay
    // that can't parse a message still delivers it (the raw message stays downloadable).
    const { subject, text, html } = receivedSummary(raw, envelope);
    return {
      from: { email: envelope.from ?? '' },
      to: envelope.to.map((email) => ({ email })),
      subject,
      text: text || (html ? '' : raw.toString('utf8')),
      html,
      raw,
    };
  }
}

async function parseWhole(raw: Buffer, envelope: Envelope): Promise<NewMail> {
  let root: MimePart | undefined;
  try {
    root = scanMessage(raw);
  } catch (err) {
    if (!(err instanceof MimeError)) throw err;
  }
  const { simpleParser } = await mailparser();
  const parsed = await simpleParser((root && skeleton(raw, root)) ?? raw, { keepCidLinks: true });
  const parts = new Map(root ? allParts(root).map((p) => [p.id, p]) : []);
  const bytesOf = (a: Attachment) => {
    const mark = readPartHeader(a.headers.get(PART_HEADER));
    const part = mark?.size !== undefined ? parts.get(mark.id) : undefined;
    return part ? partBody(raw, part) : a.content;
  };
  const mail = fromParsed(parsed, envelope);
  return { ...mail, html: inlineImages(mail.html, parsed.attachments, bytesOf), raw };
}

// mailparser's simpleParser (updateImageLinks): an image the HTML names by cid: is put in as a data:
// URL, as a mail client shows it in place, up to 20 MB of them in all.
const MAX_INLINED = 20 * 1024 * 1024;

function inlineImages(html: string, attachments: Attachment[], bytesOf: (a: Attachment) => Buffer): string {
  let budget = MAX_INLINED;
  const urls = new Map<string, string>();
  return html.replace(/\bcid:([^'"\s]{1,256})/g, (match, cid: string) => {
    let url = urls.get(cid);
    if (url === undefined) {
      const a = attachments.find((x) => x.cid === cid && /^image\/[\w]+$/i.test(x.contentType));
      url = a ? `data:${a.contentType};base64,${bytesOf(a).toString('base64')}` : '';
      urls.set(cid, url);
    }
    if (!url || url.length > budget) return match;
    budget -= url.length;
    return url;
  });
}

/** RFC 2047 encoded words (=?utf-8?Q?…?=, =?utf-8?B?…?=) decoded; the space between two of them dropped. */
function decodeWords(value: string): string {
  return value.replace(
    /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=(?:\s+(?==\?))?/g,
    (word, charset: string, how: string, text: string) => {
      const bytes =
        how.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : decodeQuotedPrintable(Buffer.from(text.replace(/_/g, ' '), 'latin1'));
      try {
        return new TextDecoder(charset.replace(/\*.*$/, '')).decode(bytes);
      } catch {
        return word;
      }
    },
  );
}

/**
 * What the stack's log says of a message as it is taken, read without parsing it: its envelope's
 * recipients, its Subject, and its first text/plain part (where a sign-in code would be).
 */
export function receivedSummary(
  raw: Buffer,
  envelope: Envelope,
): { to: string[]; subject: string; text: string; html: string } {
  const subject = decodeWords(messageFields(raw).get('subject')?.trim() ?? '');
  const bodies = { text: '', html: '' };
  try {
    const leaves = allParts(scanMessage(raw)).filter((p) => !p.parts.length);
    // The text part, else the HTML's (store.ts codeIn reads the one there is).
    const part = leaves.find((p) => p.type === 'text/plain') ?? leaves.find((p) => p.type === 'text/html');
    if (part) {
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(partFields(raw, part).get('content-type') ?? '')?.[1];
      bodies[part.type === 'text/plain' ? 'text' : 'html'] = new TextDecoder(charset ?? 'utf-8').decode(
        partBody(raw, part),
      );
    }
  } catch {
    // an odd structure or charset: the line goes without a code
  }
  return { to: envelope.to.map((e) => e.toLowerCase()), subject, ...bodies };
}

export async function startSmtp(opts: {
  port: number;
  host: string;
  /** Keeps the message before the 250 (store.ts receive); a throw refuses it. */
  receive: (raw: Buffer, envelope: Envelope) => void;
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
    // Mailpit takes any sender and recipient. Answered at once (smtp-server's defaults wait a turn of the event
    // loop for each), so the replies to a pipelined MAIL, RCPT and DATA are written in the same turn.
    onMailFrom: (_address, _session, callback) => callback(),
    onRcptTo: (_address, _session, callback) => callback(),
    onData(stream, session, callback) {
      // The message is taken whole, then parsed once: parsing while it streams in held every TCP
      // read up behind mailparser's line-by-line work (docs/decisions/068-mail-catcher-speed.md).
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= MAX_SIZE) chunks.push(chunk); // past the limit it is refused: nothing more is kept
      });
      stream.once('end', () => {
        if ((stream as { sizeExceeded?: boolean }).sizeExceeded || bytes > MAX_SIZE) {
          const err = Object.assign(new Error('Message exceeds the fixed maximum message size'), {
            responseCode: 552,
          });
          return callback(err);
        }
        const mailFrom = session.envelope.mailFrom;
        try {
          // Stored as it came before the 250 that acknowledges it; parsed when the mailbox is read.
          opts.receive(Buffer.concat(chunks, bytes), {
            from: mailFrom ? mailFrom.address : undefined,
            to: session.envelope.rcptTo.map((r) => r.address),
          });
        } catch (err) {
          opts.log(`[mail] SMTP message not stored: ${(err as Error).message}`);
          return callback(Object.assign(new Error('Message could not be stored'), { responseCode: 451 }));
        }
        callback();
      });
    },
  });
  server.on('error', (err) => opts.log(`[mail] SMTP: ${err.message}`));
  // The replies to what one read of the socket brought leave in one write, as Postfix flushes its replies to a
  // pipelined batch (RFC 2920 3.1: a client's MAIL, RCPT and DATA in one segment, three replies in one): held
  // while smtp-server's parser reads the chunk (before its own listener), sent when that is done.
  server.server.on('connection', (socket: Socket) =>
    socket.prependListener('data', () => {
      if (socket.writableCorked) return;
      socket.cork();
      process.nextTick(() => socket.uncork());
    }),
  );
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
