// The mail catcher taking messages over SMTP as they come off the wire (issue 29's figure: a reply
// with two 2 MB files; docs/decisions/068-mail-catcher-speed.md): whatever the TCP chunks, the
// dot-stuffing and the line ends, what the API gives back is what was sent, byte for byte.
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMail, type RunningMail } from '@tend/supabase-local';

let dir: string;
let mail: RunningMail;
const start = () => startMail({ port: 0, dir, smtpPort: 0, log: () => undefined });

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'tend-mail-receive-'));
  mail = await start();
});
afterAll(async () => {
  await mail?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const api = async (p: string) => {
  const res = await fetch(`${mail.url}/api/v1${p}`);
  expect(res.status, p).toBe(200);
  return res.json();
};
const part = async (id: string, partId: string) => {
  const res = await fetch(`${mail.url}/api/v1/message/${id}/part/${partId}`);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
};
const only = async (to: string) => {
  const list = await api(`/search?query=${encodeURIComponent(`to:${to}`)}`);
  expect(list.messages).toHaveLength(1);
  return api(`/message/${list.messages[0].ID}`);
};

/** An SMTP session by hand: each command after the server's answer; DATA's payload written in the given pieces. */
async function session(port: number, envelope: { from: string; to: string }, pieces: Buffer[]): Promise<string[]> {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  const answers: string[] = [];
  let pending = '';
  let waiting: ((line: string) => void) | undefined;
  socket.on('data', (d) => {
    pending += d.toString('latin1');
    for (let at = pending.indexOf('\r\n'); at >= 0; at = pending.indexOf('\r\n')) {
      const line = pending.slice(0, at);
      pending = pending.slice(at + 2);
      if (/^\d{3} /.test(line)) {
        answers.push(line);
        waiting?.(line);
      }
    }
  });
  const answer = () => new Promise<string>((resolve) => (waiting = resolve));
  const say = async (command: string) => {
    const next = answer();
    socket.write(`${command}\r\n`);
    return next;
  };
  await answer(); // the greeting
  await say('EHLO test.local');
  await say(`MAIL FROM:<${envelope.from}>`);
  await say(`RCPT TO:<${envelope.to}>`);
  expect(await say('DATA')).toMatch(/^354 /);
  const accepted = answer();
  // One write per piece, each read on its own: the catcher sees the message in that many chunks.
  for (const p of pieces) {
    socket.write(p);
    await new Promise((r) => setImmediate(r));
  }
  await accepted;
  await say('QUIT');
  socket.end();
  return answers;
}

/** SMTP's transparency (RFC 5321 4.5.2): a line that starts with "." gets one more. */
const dotStuffed = (message: string) => message.replace(/^\./gm, '..');

describe('SMTP receive', () => {
  it('takes a multi-MB message with two files and gives each back byte for byte', async () => {
    const pdf = randomBytes(2 * 1024 * 1024 + 2);
    const png = randomBytes(2 * 1024 * 1024);
    const logo = randomBytes(1500);
    const built = await nodemailer
      .createTransport({ streamTransport: true, buffer: true, newline: 'windows' })
      .sendMail({
        from: '"Acme Support" <support@acme.test>',
        to: 'big@example.test',
        subject: 'Re: Files [#7]',
        text: 'Two files.',
        html: '<p>Two files.</p><img src="cid:logo@acme.test">',
        attachments: [
          { filename: 'logo.png', content: logo, contentType: 'image/png', cid: 'logo@acme.test' },
          { filename: 'report.pdf', content: pdf, contentType: 'application/pdf' },
          { filename: 'photo.png', content: png, contentType: 'image/png' },
        ],
      });
    const raw = built.message as Buffer;
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mail.smtpPort, secure: false });
    await transport.sendMail({ envelope: { from: 'support@acme.test', to: ['big@example.test'] }, raw });
    transport.close();

    const m = await only('big@example.test');
    expect(m.Size).toBe(raw.length); // Mailpit: the raw message's size
    expect(m.Text).toBe('Two files.');
    expect(m.Attachments).toEqual([
      {
        PartID: expect.any(String),
        FileName: 'report.pdf',
        ContentType: 'application/pdf',
        ContentID: '',
        Size: pdf.length,
      },
      { PartID: expect.any(String), FileName: 'photo.png', ContentType: 'image/png', ContentID: '', Size: png.length },
    ]);
    expect(m.Inline).toEqual([
      {
        PartID: expect.any(String),
        FileName: 'logo.png',
        ContentType: 'image/png',
        ContentID: 'logo@acme.test',
        Size: 1500,
      },
    ]);
    // The inline image is in place in the HTML, as mailparser put it and a mail client shows it.
    expect(m.HTML).toContain(`<img src="data:image/png;base64,${logo.toString('base64')}">`);

    const [report, photo] = await Promise.all(m.Attachments.map((a: { PartID: string }) => part(m.ID, a.PartID)));
    expect(report.res.headers.get('content-type')).toBe('application/pdf');
    expect(report.res.headers.get('content-disposition')).toBe('filename="report.pdf"');
    expect(report.bytes.equals(pdf)).toBe(true);
    expect(photo.bytes.equals(png)).toBe(true);
    expect((await part(m.ID, '9')).res.status).toBe(404);
  }, 30_000);

  it('reassembles a message sent in thousands of small chunks, dot-stuffed, the end marker split', async () => {
    const file = randomBytes(40_000);
    // Lines that start with dots (one of them only a dot, the end marker's look), in the text and in a text file.
    const tricky = ['.leading dot', '..two dots', '.', 'a line that ends in a dot.'].join('\r\n');
    const message = [
      'From: Support <support@acme.test>',
      'To: chunks@example.test',
      'Subject: Chunks',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Dots:\r\n${tricky}`,
      '--b1',
      'Content-Type: text/plain; name="dots.txt"',
      'Content-Disposition: attachment; filename="dots.txt"',
      '',
      tricky,
      '--b1',
      'Content-Type: application/octet-stream; name="data.bin"',
      'Content-Disposition: attachment; filename="data.bin"',
      'Content-Transfer-Encoding: base64',
      '',
      file.toString('base64').replace(/.{76}/g, '$&\r\n'),
      '--b1--',
      '',
    ].join('\r\n');
    const payload = Buffer.from(dotStuffed(message), 'latin1');
    const pieces: Buffer[] = [];
    for (let at = 0, n = 1; at < payload.length; at += n, n = (n % 13) + 1) pieces.push(payload.subarray(at, at + n));
    // The end marker one byte a write (the message's last line break is its first half).
    for (const b of '.\r\n') pieces.push(Buffer.from(b));
    expect(pieces.length).toBeGreaterThan(5000);
    const answers = await session(mail.smtpPort!, { from: 'support@acme.test', to: 'chunks@example.test' }, pieces);
    expect(answers.at(-2)).toMatch(/^250 /);

    const m = await only('chunks@example.test');
    expect(m.Text).toBe(`Dots:\n${tricky.replaceAll('\r\n', '\n')}`);
    const byName = (name: string) => m.Attachments.find((a: { FileName: string }) => a.FileName === name);
    expect(byName('data.bin').Size).toBe(file.length);
    expect((await part(m.ID, byName('data.bin').PartID)).bytes.equals(file)).toBe(true);
    expect((await part(m.ID, byName('dots.txt').PartID)).bytes.toString('latin1')).toBe(tricky);
  }, 60_000);

  it('prints its line as it takes a message, and parses it when the mailbox is first read', async () => {
    const own = mkdtempSync(path.join(os.tmpdir(), 'tend-mail-lazy-'));
    const lines: string[] = [];
    const catcher = await startMail({ port: 0, dir: own, smtpPort: 0, log: (l) => lines.push(l) });
    try {
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: catcher.smtpPort, secure: false });
      await transport.sendMail({
        from: 'support@acme.test',
        to: 'Lazy@Example.test',
        subject: 'Ünïcode — your code',
        text: 'Your code is 482913.',
        html: '<p>Your code is 482913.</p>',
      });
      transport.close();
      expect(lines).toEqual(['[mail] to lazy@example.test · code 482913 · "Ünïcode — your code"']);
      // Kept as it came (with its envelope, one record of the journal) until read: nothing parsed on disk yet.
      expect(readdirSync(path.join(own, 'mail'))).toEqual(['received.journal']);
      expect(readFileSync(path.join(own, 'mail', 'received.journal'), 'utf8')).toContain('Your code is 482913.');
      const list = await (await fetch(`${catcher.url}/api/v1/messages`)).json();
      expect(list.messages).toMatchObject([
        { Subject: 'Ünïcode — your code', To: [{ Address: 'lazy@example.test' }], Snippet: 'Your code is 482913.' },
      ]);
      const m = await (await fetch(`${catcher.url}/api/v1/message/${list.messages[0].ID}`)).json();
      expect(m).toMatchObject({ Text: 'Your code is 482913.', HTML: '<p>Your code is 482913.</p>' });
      // Parsed: its .eml and JSON, and the journal emptied.
      const json = path.join(own, 'mail', `${m.ID}.json`);
      expect(readFileSync(json, 'utf8')).toContain('482913');
      expect(readFileSync(json.replace('.json', '.eml'), 'utf8')).toContain('Your code is 482913.');
      expect(readFileSync(path.join(own, 'mail', 'received.journal'), 'utf8')).toBe('');
    } finally {
      await catcher.stop();
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('keeps what it acknowledged across a restart, and drops a raw message it never acknowledged', async () => {
    const file = randomBytes(100_000);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mail.smtpPort, secure: false });
    await transport.sendMail({
      from: 'support@acme.test',
      to: 'restart@example.test',
      subject: 'Kept',
      text: 'A file.',
      attachments: [{ filename: 'kept.bin', content: file }],
    });
    transport.close();
    // What a crash between writing a raw message and its JSON leaves.
    writeFileSync(path.join(dir, 'mail', 'ABCDEFGHJKLMNPQRSTUVWX.eml'), 'half a message');
    await mail.stop();
    mail = await start();
    const m = await only('restart@example.test');
    expect((await part(m.ID, m.Attachments[0].PartID)).bytes.equals(file)).toBe(true);
    expect(readdirSync(path.join(dir, 'mail'))).not.toContain('ABCDEFGHJKLMNPQRSTUVWX.eml');
  }, 30_000);

  it('keeps what it acknowledged when the journal ends in a record cut short, and appends whole records after it', async () => {
    // A port of its own each start: a transport for each message.
    const send = async (to: string) => {
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mail.smtpPort, secure: false });
      await transport.sendMail({ from: 'support@acme.test', to, subject: to, text: `For ${to}.` });
      transport.close();
    };
    await send('before-cut@example.test');
    await mail.stop();
    // What a crash in the middle of a record's write leaves: its header and part of its message.
    const journal = path.join(dir, 'mail', 'received.journal');
    expect(readFileSync(journal, 'utf8')).toContain('For before-cut@example.test.');
    appendFileSync(journal, `${JSON.stringify({ id: 'ABCDEFGHJKLMNPQRSTUVWY', seq: 1e6, size: 500 })}\nhalf a mes`);
    mail = await start();
    await send('after-cut@example.test');
    // And again: what came after the cut is read back whole (the cut was cut off, not appended to).
    await mail.stop();
    mail = await start();
    expect((await only('before-cut@example.test')).Text).toBe('For before-cut@example.test.\n');
    expect((await only('after-cut@example.test')).Text).toBe('For after-cut@example.test.\n');
    expect(readFileSync(journal, 'utf8')).toBe('');
  }, 30_000);
});
