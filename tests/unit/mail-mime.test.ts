// The mail catcher's one-pass MIME scan (supabase/local/mail/mime.ts): where each part lies, its
// number, a file's bytes decoded from the raw message, and the skeleton mailparser reads instead.
import { randomBytes } from 'node:crypto';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { describe, expect, it } from 'vitest';
import {
  allParts,
  base64Size,
  decodeQuotedPrintable,
  MimeError,
  partBody,
  scanMessage,
  skeleton,
} from '@tend/supabase-local/testing';

/** A message as nodemailer writes it (what notify sends). */
async function compose(mail: SendMailOptions): Promise<Buffer> {
  const built = await nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }).sendMail({
    from: 'support@acme.test',
    to: 'customer@example.test',
    subject: 'Re: Printer',
    ...mail,
  });
  return built.message as Buffer;
}

const leaf = (raw: Buffer, id: string) => allParts(scanMessage(raw)).find((p) => p.id === id)!;

describe('scanMessage', () => {
  it('finds a multi-MB message’s two files and decodes each byte for byte', async () => {
    const pdf = randomBytes(2 * 1024 * 1024 + 1); // not a multiple of 3: the last base64 group is padded
    const png = randomBytes(2 * 1024 * 1024);
    const raw = await compose({
      text: 'See the files.',
      html: '<p>See the files.</p>',
      attachments: [
        { filename: 'report.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'photo.png', content: png, contentType: 'image/png' },
      ],
    });
    const root = scanMessage(raw);
    expect(root.type).toBe('multipart/mixed');
    expect(allParts(root).map((p) => [p.id, p.type])).toEqual([
      ['', 'multipart/mixed'],
      ['1', 'multipart/alternative'],
      ['1.1', 'text/plain'],
      ['1.2', 'text/html'],
      ['2', 'application/pdf'],
      ['3', 'image/png'],
    ]);
    expect(partBody(raw, leaf(raw, '2')).equals(pdf)).toBe(true);
    expect(partBody(raw, leaf(raw, '3')).equals(png)).toBe(true);
    const p = leaf(raw, '2');
    expect(base64Size(raw, p.bodyStart, p.end)).toBe(pdf.length);
    expect(partBody(raw, leaf(raw, '1.1')).toString()).toBe('See the files.');
  });

  it('numbers nested parts as Mailpit does and ignores the preamble and the epilogue', () => {
    const raw = Buffer.from(
      [
        'Content-Type: multipart/mixed; boundary="outer"',
        '',
        'This is the preamble.',
        '--outer',
        'Content-Type: multipart/related; boundary="outer-inner"', // starts with the outer boundary
        '',
        '--outer-inner',
        'Content-Type: text/html',
        '',
        '<p>Hi <img src="cid:logo"></p>',
        '--outer-inner',
        'Content-Type: image/png',
        'Content-Transfer-Encoding: base64',
        'Content-ID: <logo>',
        '',
        Buffer.from('PNG!').toString('base64'),
        '--outer-inner--',
        '',
        '--outer',
        '',
        'A part without headers is text/plain.',
        '--outer--',
        'The epilogue.',
      ].join('\r\n'),
    );
    const parts = allParts(scanMessage(raw));
    expect(parts.map((p) => [p.id, p.type])).toEqual([
      ['', 'multipart/mixed'],
      ['1', 'multipart/related'],
      ['1.1', 'text/html'],
      ['1.2', 'image/png'],
      ['2', 'text/plain'],
    ]);
    expect(partBody(raw, parts[2]).toString()).toBe('<p>Hi <img src="cid:logo"></p>');
    expect(partBody(raw, parts[3]).toString()).toBe('PNG!');
    expect(partBody(raw, parts[4]).toString()).toBe('A part without headers is text/plain.');
  });

  it('reads a message with bare LF line ends, and a delimiter with spaces after it', () => {
    const raw = Buffer.from(
      'Content-Type: multipart/mixed; boundary=b\n\n--b  \nContent-Type: text/plain\n\nline one\nline two\n--b--\n',
    );
    const [, text] = allParts(scanMessage(raw));
    expect(partBody(raw, text).toString()).toBe('line one\nline two');
  });

  it('keeps an empty part empty', () => {
    const raw = Buffer.from('Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\n--b--\r\n');
    const [, empty] = allParts(scanMessage(raw));
    expect(partBody(raw, empty).length).toBe(0);
  });

  it('refuses a multipart it can’t close, so the catcher parses it the slow way', () => {
    const raw = Buffer.from('Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\ntext, and no end\r\n');
    expect(() => scanMessage(raw)).toThrow(MimeError);
    expect(() => scanMessage(Buffer.from('Content-Type: multipart/mixed\r\n\r\nno boundary'))).toThrow(MimeError);
  });
});

describe('skeleton', () => {
  it('leaves the files’ bodies out, marks each part with its number and a dropped body with its size', async () => {
    const pdf = randomBytes(300_000);
    const raw = await compose({
      text: 'Text',
      html: '<p>Text</p>',
      attachments: [
        { filename: 'notes.txt', content: 'kept whole', contentTransferEncoding: 'base64' },
        { filename: 'report.pdf', content: pdf, contentType: 'application/pdf' },
      ],
    });
    const small = skeleton(raw, scanMessage(raw))!.toString('latin1');
    expect(small.length).toBeLessThan(4000);
    expect(small).toContain('X-Tend-Part: 1.1\r\nContent-Type: text/plain');
    expect(small).toContain(`X-Tend-Part: 3 ${pdf.length}\r\n`);
    expect(small).toContain(Buffer.from('kept whole').toString('base64')); // a text file stays
    // The message's own headers come first, untouched.
    expect(small.slice(0, 200)).toBe(raw.toString('latin1', 0, 200));
  });

  it('gives nothing for a message of one part', async () => {
    const raw = await compose({ text: 'Just text' });
    expect(skeleton(raw, scanMessage(raw))).toBeUndefined();
  });
});

describe('decodeQuotedPrintable', () => {
  it('decodes =XX, joins soft line breaks (spaces before them too), keeps a lone "="', () => {
    const qp = Buffer.from('caf=C3=A9 =3D 1 =\r\nand on=  \nwards, a lone = stays=');
    expect(decodeQuotedPrintable(qp).toString()).toBe('café = 1 and onwards, a lone = stays');
  });
});
