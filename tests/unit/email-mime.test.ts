// notify's emails written out in one pass (supabase/functions/_shared/email-mime.ts): the same bytes as
// nodemailer's own stream of the same composed message. notify runs nodemailer 6 in Deno; this is the
// app's nodemailer (10), whose headers, boundaries, quoted-printable and base64 of text bodies and of
// base64 files are written the same way (docs/decisions/096-assignment-email-cpu.md).
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { encode as nodemailerQpEncode, wrap } from 'nodemailer/lib/qp';
import { describe, expect, it } from 'vitest';
import { buildMessage, canBuild, type MimeTree, qpEncode } from '../../supabase/functions/_shared/email-mime.ts';

const read = (s: Readable) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    s.on('data', (d: Buffer) => chunks.push(Buffer.from(d)));
    s.on('end', () => resolve(Buffer.concat(chunks)));
    s.on('error', reject);
  });

/** The message nodemailer composes for `mail`: as its stream writes it, and as buildMessage does. */
async function both(mail: SendMailOptions) {
  let got: { streamed: Buffer; built: Buffer } | undefined;
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  transport.use('stream', (m, done) => {
    const root = m.message as unknown as MimeTree & { createReadStream(): Readable };
    expect(canBuild(root)).toBe(true);
    const built = buildMessage(root, wrap);
    read(root.createReadStream())
      .then((streamed) => {
        got = { streamed, built };
        done();
      })
      .catch(done);
  });
  await transport.sendMail({ from: '"Acme Support" <support@acme.test>', to: 'agent@acme.test', ...mail });
  return got!;
}

// Words with what quoted-printable escapes or breaks on: "=", trailing spaces, tabs, CRLF and LF, long
// runs without a space, accents, emoji, CJK.
const PIECES = [
  'Printer ',
  'on fire',
  '=',
  ' \n',
  '\t\r\n',
  'x'.repeat(90),
  'Grüße, ',
  'déjà ',
  '😀 ',
  '漢字テキスト',
  '. ',
  '!?',
];
const text = (n: number, seed: number) => {
  let s = '';
  for (let i = 0; s.length < n; i++) s += PIECES[(i * 7 + seed * 3 + (i >> 2)) % PIECES.length];
  return s.slice(0, n);
};

describe('buildMessage', () => {
  it('writes an assignment notice byte for byte as nodemailer streams it', async () => {
    const { streamed, built } = await both({
      subject: '[Acme] #12 Printer on fire',
      messageId: '<n.1@tend.localhost>',
      replyTo: 'reply+abc@tend.localhost',
      inReplyTo: '<m.2@tend.localhost>',
      references: ['<m.1@tend.localhost>', '<m.2@tend.localhost>'],
      headers: { 'List-Unsubscribe': '<mailto:unsubscribe+x@tend.localhost?subject=unsubscribe>' },
      text: 'Tend assigned you request #12.\n\nOpen the ticket: http://localhost:3000/w/acme/tickets/12',
      html: `<!DOCTYPE html><html lang="en"><body style="margin:0">${'<p style="margin:0 0 12px">Tend assigned you.</p>'.repeat(80)}</body></html>`,
    });
    expect(built.toString('latin1')).toContain('Content-Transfer-Encoding: quoted-printable');
    expect(built.equals(streamed)).toBe(true);
  });

  it('writes texts of every length and kind, with files, the same as nodemailer', async () => {
    for (const [i, n] of [0, 1, 40, 75, 76, 77, 151, 1000, 30_000].entries()) {
      const mail: SendMailOptions = {
        subject: `Re: ${text(50, i)}`,
        text: n ? text(n, i) : undefined,
        html: i % 3 ? `<p>${text(n * 2, i + 1)}</p>` : undefined,
        attachments:
          i % 2
            ? [
                { filename: 'Bericht ü.pdf', content: randomBytes(3000 + i), contentType: 'application/pdf' },
                { filename: 'note.txt', content: text(500, i) },
                { filename: 'photo.png', content: randomBytes(100), contentType: 'image/png', cid: `img${i}@x` },
              ]
            : undefined,
      };
      const { streamed, built } = await both(mail);
      expect(built.toString('latin1'), `length ${n}`).toBe(streamed.toString('latin1'));
    }
  });

  it('leaves a message with a body to fetch or sign to nodemailer', () => {
    const node = (content: unknown): MimeTree => ({
      multipart: false,
      childNodes: [],
      content,
      _transforms: [],
      _processFuncs: [],
      buildHeaders: () => '',
      getTransferEncoding: () => false,
    });
    expect(canBuild(node('text'))).toBe(true);
    expect(canBuild(node({ path: '/tmp/file.pdf' }))).toBe(false);
    expect(canBuild({ ...node('text'), _processFuncs: [() => undefined] })).toBe(false);
    expect(canBuild({ ...node(undefined), multipart: 'mixed', childNodes: [node({ href: 'http://x' })] })).toBe(false);
  });
});

describe('qpEncode', () => {
  it('escapes as nodemailer’s quoted-printable does', () => {
    for (const bytes of [
      Buffer.from(text(5000, 1)),
      Buffer.from('ends with a space '),
      Buffer.from('tab\t\nspace \r\n='),
      randomBytes(4096),
    ])
      expect(qpEncode(bytes)).toBe(nodemailerQpEncode(bytes));
  });
});
