// An email's bytes from nodemailer's own MIME tree, built in one synchronous pass instead of its
// streams (docs/decisions/096-assignment-email-cpu.md). nodemailer composes the message as always
// (MailMessage, MailComposer: every header, address, encoding choice and boundary is its own); only
// the writing out is done here: the same headers (MimeNode.buildHeaders), the same transfer encodings
// (getTransferEncoding), the same quoted-printable and base64 lines, the same boundaries and the same
// final line break, byte for byte (tests/unit/email-mime.test.ts). nodemailer 6's stream writes each
// part through a chain of stream transforms with setImmediate hops, and encodes quoted-printable a
// byte at a time into a string: about a third of notify's CPU an email in Deno's node:stream.
import { Buffer } from 'node:buffer';
import { PassThrough, type Readable } from 'node:stream';

/** What this reads of a nodemailer MimeNode (lib/mime-node), 6.x to 10.x. */
export interface MimeTree {
  multipart: string | false;
  boundary?: string;
  childNodes: MimeTree[];
  content?: unknown;
  _raw?: unknown;
  _transforms: unknown[];
  _processFuncs: unknown[];
  newline?: unknown;
  buildHeaders(): string;
  getTransferEncoding(): string | false;
}

/** nodemailer's lib/qp wrap(): soft line breaks in quoted-printable, at most `lineLength` a line. */
export type QpWrap = (encoded: string, lineLength: number) => string;

const isBytes = (x: unknown): x is string | Uint8Array => typeof x === 'string' || x instanceof Uint8Array;

/**
 * Whether the tree is written here: every body a string or bytes (a stream, a file path or a URL is
 * left to nodemailer), and nothing that rewrites the output (DKIM signing, transforms, line endings).
 */
export function canBuild(root: MimeTree): boolean {
  if (root._transforms.length || root._processFuncs.length || root.newline) return false;
  const fits = (n: MimeTree): boolean =>
    (n._raw
      ? isBytes(n._raw)
      : !n.content || (isBytes(n.content) && !(n.content as { _resolve?: unknown })._resolve)) &&
    n.childNodes.every(fits);
  return fits(root);
}

/** The message as nodemailer's MimeNode.createReadStream writes it (with LastNewline), for a tree canBuild takes. */
export function buildMessage(root: MimeTree, wrap: QpWrap): Buffer {
  const out: (string | Uint8Array)[] = [];
  const write = (n: MimeTree) => {
    if (n._raw) out.push(n._raw as string | Uint8Array);
    else {
      out.push(`${n.buildHeaders()}\r\n\r\n`);
      // After buildHeaders the Content-Transfer-Encoding header is set, so this doesn't look at the content again.
      const encoding = n.getTransferEncoding();
      if (n.content) {
        const content = n.content as string | Uint8Array;
        if (encoding === 'quoted-printable') out.push(wrap(qpEncode(toBytes(content)), 76));
        else if (encoding === 'base64') out.push(base64Lines(toBytes(content)));
        else out.push(content);
      }
    }
    if (!n.multipart) return;
    n.childNodes.forEach((child, i) => {
      out.push(`${i ? '\r\n' : ''}--${n.boundary}\r\n`);
      write(child);
    });
    out.push(`\r\n--${n.boundary}--\r\n`);
  };
  write(root);
  // One conversion for the text between byte bodies (UTF-8 of a concatenation is the concatenation of each's).
  const chunks: Uint8Array[] = [];
  let text: string[] = [];
  for (const x of out) {
    if (typeof x === 'string') text.push(x);
    else {
      chunks.push(Buffer.from(text.join(''), 'utf-8'), x);
      text = [];
    }
  }
  chunks.push(Buffer.from(text.join(''), 'utf-8'));
  const message = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  // mime-node/last-newline.js: the message ends with a line break.
  const last = message[message.length - 1];
  return last === 0x0a ? message : Buffer.concat([message, Buffer.from(last === 0x0d ? '\n' : '\r\n')]);
}

/**
 * Has `root` (the message of a nodemailer sendMail, at its "stream" step) read out from one buffer
 * built here when it can be (checked when it is read: DKIM signing is added after that step);
 * otherwise nodemailer streams it as before.
 */
export function readFromBuffer(root: MimeTree & { createReadStream(options?: unknown): Readable }, wrap: QpWrap) {
  const streamed = root.createReadStream;
  root.createReadStream = (options?: unknown) => {
    if (options || !canBuild(root)) return streamed.call(root, options);
    const stream = new PassThrough();
    stream.end(buildMessage(root, wrap));
    return stream;
  };
}

const toBytes = (x: string | Uint8Array) => (typeof x === 'string' ? Buffer.from(x, 'utf-8') : x);

/** base64 in lines of 76, CRLF between them (lib/base64 Encoder, one chunk). */
function base64Lines(bytes: Uint8Array): string {
  const b64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 76) lines.push(b64.slice(i, i + 76));
  return lines.join('\r\n');
}

// RFC 2045 6.7: the bytes written as they are (lib/qp's ranges): TAB, LF, CR, SP to "<", ">" to "~".
const LITERAL = new Uint8Array(256);
for (let c = 0; c < 256; c++)
  LITERAL[c] = c === 0x09 || c === 0x0a || c === 0x0d || (c >= 0x20 && c <= 0x7e && c !== 0x3d) ? 1 : 0;
const HEX = '0123456789ABCDEF';

/**
 * Quoted-printable without line breaks, as nodemailer's lib/qp encode(): every byte outside the
 * literal ranges as =XX, and a space or tab before a line break or at the end too. Into a byte array,
 * not a string a character at a time (nodemailer 7+ encodes the same way).
 */
export function qpEncode(bytes: Uint8Array): string {
  const out = new Uint8Array(bytes.length * 3);
  let o = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (
      LITERAL[c] &&
      !((c === 0x20 || c === 0x09) && (i === bytes.length - 1 || bytes[i + 1] === 0x0a || bytes[i + 1] === 0x0d))
    ) {
      out[o++] = c;
      continue;
    }
    out[o++] = 0x3d;
    out[o++] = HEX.charCodeAt(c >> 4);
    out[o++] = HEX.charCodeAt(c & 15);
  }
  return Buffer.from(out.buffer, 0, o).toString('latin1');
}
