// The mail catcher's SMTP side, as an app or a function sends through it: what arrives is read
// back through the Mailpit API and the web inbox, as a developer reads it.
import nodemailer from 'nodemailer';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { stackFixture } from '../support/fixture.ts';

const stack = stackFixture();
const api = (path: string) => fetch(`${stack.mailUrl}/api/v1${path}`).then((r) => r.json());

describe('SMTP', () => {
  it('listens on the port after the web inbox and reports it in the status', () => {
    expect(stack.smtpPort).toBe(Number(new URL(stack.mailUrl).port) + 1);
  });

  it('stores a threaded message with both parts, its headers and attachments, visible through the API', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: stack.smtpPort, secure: false });
    const sent = await transport.sendMail({
      from: '"Tend Support" <support@acme.test>',
      to: 'Customer <Customer@Example.test>',
      bcc: 'hidden@example.test',
      replyTo: 'reply+t0k3n@inbound.acme.test',
      subject: 'Re: Printer on fire',
      messageId: '<reply-42@acme.test>',
      inReplyTo: '<request-41@acme.test>',
      references: ['<request-40@acme.test>', '<request-41@acme.test>'],
      list: { unsubscribe: { url: 'https://acme.test/unsubscribe?t=abc', comment: 'Unsubscribe' } },
      text: 'We put it out.\n\nSee /support/acme/requests/42',
      html: '<p>We put it out.</p><img src="cid:logo@acme">',
      attachments: [
        { filename: 'report.txt', content: 'all quiet now' },
        { filename: 'logo.png', content: Buffer.from([137, 80, 78, 71]), cid: 'logo@acme' },
      ],
    });
    expect(sent.accepted).toHaveLength(2);
    transport.close();

    const list = await api(`/search?query=${encodeURIComponent('to:customer@example.test')}`);
    expect(list.messages).toHaveLength(1);
    const summary = list.messages[0];
    expect(summary).toMatchObject({ MessageID: 'reply-42@acme.test', Subject: 'Re: Printer on fire', Attachments: 1 });
    const m = await api(`/message/${summary.ID}`);
    expect(m.From).toEqual({ Name: 'Tend Support', Address: 'support@acme.test' });
    expect(m.To).toEqual([{ Name: 'Customer', Address: 'customer@example.test' }]);
    expect(m.Bcc).toEqual([{ Name: '', Address: 'hidden@example.test' }]);
    expect(m.ReplyTo).toEqual([{ Name: '', Address: 'reply+t0k3n@inbound.acme.test' }]);
    expect(m.Text).toBe('We put it out.\n\nSee /support/acme/requests/42');
    expect(m.HTML).toContain('<p>We put it out.</p>');
    expect(m.ListUnsubscribe).toMatchObject({ Links: ['https://acme.test/unsubscribe?t=abc'] });
    expect(m.Attachments).toEqual([
      { PartID: expect.any(String), FileName: 'report.txt', ContentType: 'text/plain', ContentID: '', Size: 13 },
    ]);
    expect(m.Inline).toEqual([
      { PartID: expect.any(String), FileName: 'logo.png', ContentType: 'image/png', ContentID: 'logo@acme', Size: 4 },
    ]);
    const headers = await api(`/message/${summary.ID}/headers`);
    expect(headers['In-Reply-To']).toEqual(['<request-41@acme.test>']);
    expect(headers.References).toEqual(['<request-40@acme.test> <request-41@acme.test>']);

    const inbox = await (await fetch(`${stack.mailUrl}/view/${summary.ID}`)).text();
    expect(inbox).toContain('Re: Printer on fire');
  });

  it('accepts a client that logs in with any credentials, as Mailpit with --smtp-auth-accept-any', async () => {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: stack.smtpPort,
      secure: false,
      auth: { user: 'apikey', pass: 'whatever' },
    });
    await transport.sendMail({ from: 'a@acme.test', to: 'auth@example.test', subject: 'with auth', text: 'hi' });
    transport.close();
    const list = await api(`/search?query=${encodeURIComponent('to:auth@example.test')}`);
    expect(list.messages[0].Subject).toBe('with auth');
  });

  it('answers a message it cannot take with an SMTP error, and keeps serving', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(stack.smtpPort, '127.0.0.1');
      let buffer = '';
      const steps = ['EHLO test\r\n', 'MAIL FROM:<a@acme.test> SIZE=999999999\r\n'];
      socket.on('data', (d) => {
        buffer += d.toString();
        if (!buffer.endsWith('\r\n')) return;
        const next = steps.shift();
        if (next) {
          buffer = '';
          socket.write(next);
        } else {
          socket.end('QUIT\r\n');
          resolve(buffer);
        }
      });
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^552 /);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: stack.smtpPort, secure: false });
    await transport.sendMail({ from: 'a@acme.test', to: 'after@example.test', subject: 'still here', text: 'ok' });
    transport.close();
    expect((await api(`/search?query=${encodeURIComponent('to:after@example.test')}`)).messages).toHaveLength(1);
  });

  it('takes a pipelined envelope (RFC 2920): MAIL, RCPT and DATA in one write get their replies in order', async () => {
    const socket = net.connect(stack.smtpPort, '127.0.0.1');
    let buffer = '';
    const waiters: { until: RegExp; resolve: (text: string) => void }[] = [];
    const settle = () => {
      const w = waiters[0];
      const m = w?.until.exec(buffer);
      if (!m) return;
      waiters.shift();
      const text = buffer.slice(0, m.index + m[0].length);
      buffer = buffer.slice(text.length);
      w.resolve(text);
    };
    socket.on('data', (d) => {
      buffer += d.toString();
      settle();
    });
    // The server's replies up to the line that matches `until` (a final reply line: code and a space).
    const reply = (until: RegExp) =>
      new Promise<string>((resolve, reject) => {
        waiters.push({ until, resolve });
        socket.once('error', reject);
        settle();
      });
    try {
      await reply(/^220 .*\r\n/m);
      socket.write('EHLO test\r\n');
      expect(await reply(/^250 .*\r\n/m)).toMatch(/^250-PIPELINING\r$/m);
      socket.write('MAIL FROM:<a@acme.test>\r\nRCPT TO:<pipelined@example.test>\r\nDATA\r\n');
      const replies = (await reply(/^354 .*\r\n/m)).trimEnd().split('\r\n');
      expect(replies.map((line) => line.slice(0, 4))).toEqual(['250 ', '250 ', '354 ']);
      socket.write('From: a@acme.test\r\nTo: pipelined@example.test\r\nSubject: pipelined\r\n\r\nhi\r\n.\r\n');
      expect(await reply(/^\d{3} .*\r\n/m)).toMatch(/^250 /);
      socket.write('QUIT\r\n');
    } finally {
      socket.end();
    }
    const list = await api(`/search?query=${encodeURIComponent('to:pipelined@example.test')}`);
    expect(list.messages.map((m: { Subject: string }) => m.Subject)).toEqual(['pipelined']);
  });
});
