// The local mail catcher over real HTTP: Mailpit's API, the send API, the store on disk and the inbox page.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMail, type RunningMail } from '@tend/supabase-local';

interface Summary {
  ID: string;
  Read: boolean;
  Subject: string;
  To: { Name: string; Address: string }[];
}

describe('mail catcher', () => {
  let dir: string;
  let mail: RunningMail;
  const lines: string[] = [];
  const start = () => startMail({ port: 0, dir, log: (l) => lines.push(l) });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tend-mail-'));
    mail = await start();
  });
  afterAll(async () => {
    await mail?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = (p: string, init?: RequestInit) => fetch(`${mail.url}${p}`, init);
  const json = async (p: string, init?: RequestInit) => {
    const res = await api(p, init);
    expect(res.status, `${init?.method ?? 'GET'} ${p}`).toBe(200);
    return res.json();
  };
  const list = () => json('/api/v1/messages');
  const searchFor = (query: string, extra = '') => json(`/api/v1/search?query=${encodeURIComponent(query)}${extra}`);
  const send = (to: string, subject: string, text: string, html = `<p>${text}</p>`) =>
    mail.mailer.send({ from: { name: 'Admin', email: 'admin@email.com' }, to: [{ email: to }], subject, text, html });
  const post = (body: unknown) =>
    api('/api/v1/send', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('listens on the OS-assigned port when asked for port 0', () => {
    expect(mail.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(mail.url).not.toMatch(/:0$/);
  });

  it('keeps what mailer.send hands over, lists it newest first in Mailpit’s shape, and prints one line per email', async () => {
    await send('first@example.test', 'First', 'Your code is 123456.');
    await send('second@example.test', 'Second', 'Your code is 654321.');
    const body = await list();
    expect(body).toMatchObject({ total: 2, unread: 2, count: 2, messages_count: 2, start: 0, tags: [] });
    expect(body.messages.map((m: Summary) => m.Subject)).toEqual(['Second', 'First']);
    const [second] = body.messages;
    expect(second).toEqual({
      ID: expect.stringMatching(/^[A-Za-z0-9]{22}$/),
      MessageID: expect.any(String),
      Read: false,
      From: { Name: 'Admin', Address: 'admin@email.com' },
      To: [{ Name: '', Address: 'second@example.test' }],
      Cc: [],
      Bcc: [],
      ReplyTo: [],
      Subject: 'Second',
      Created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      Tags: [],
      Size: expect.any(Number),
      Attachments: 0,
      Snippet: 'Your code is 654321.',
    });
    expect(lines).toEqual([
      '[mail] to first@example.test · code 123456 · "First"',
      '[mail] to second@example.test · code 654321 · "Second"',
    ]);
  });

  it('takes the code only from a standalone run of 6–10 digits, and leaves it out when there is none', async () => {
    await send(
      'codes@example.test',
      'Link only',
      'Open http://127.0.0.1:54321/auth/v1/verify?token=a1234567b&type=magiclink to sign in.',
    );
    await send('codes@example.test', 'Long code', 'Code: 1234567890 (valid 1 hour), order 12345');
    expect(lines.at(-2)).toBe('[mail] to codes@example.test · "Link only"');
    expect(lines.at(-1)).toBe('[mail] to codes@example.test · code 1234567890 · "Long code"');
    await api('/api/v1/search?query=to:codes@example.test', { method: 'DELETE' });
  });

  it('accepts email from other senders through the send API', async () => {
    const res = await post({
      From: { Email: 'notify@tend.test', Name: 'Tend' },
      To: [{ Email: 'agent@example.test', Name: 'Agent Smith' }],
      Cc: [{ Email: 'lead@example.test' }],
      Subject: 'New reply on #42',
      Text: 'Hello, there is a new reply.',
      HTML: '<h1>New reply</h1><p>Hello, there is a new reply.</p>',
      Tags: ['tickets', 'reply'],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const { ID } = await res.json();
    expect(ID).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(lines.at(-1)).toBe('[mail] to agent@example.test, lead@example.test · "New reply on #42"');

    const msg = await json(`/api/v1/message/${ID}`);
    expect(msg).toEqual({
      ID,
      MessageID: expect.any(String),
      From: { Name: 'Tend', Address: 'notify@tend.test' },
      To: [{ Name: 'Agent Smith', Address: 'agent@example.test' }],
      Cc: [{ Name: '', Address: 'lead@example.test' }],
      Bcc: [],
      ReplyTo: [],
      ReturnPath: 'notify@tend.test',
      Subject: 'New reply on #42',
      ListUnsubscribe: { Header: '', Links: [], Errors: '', HeaderPost: '' },
      Date: expect.any(String),
      Tags: ['reply', 'tickets'],
      Text: 'Hello, there is a new reply.',
      HTML: '<h1>New reply</h1><p>Hello, there is a new reply.</p>',
      Size: expect.any(Number),
      Inline: [],
      Attachments: [],
    });
    const summary = (await list()).messages[0];
    expect(summary.Snippet).toBe('New reply Hello, there is a new reply.'); // Mailpit: from the HTML when there is one
    expect((await list()).tags).toEqual(['reply', 'tickets']);
  });

  it('refuses bad send input with 400 and Mailpit’s {"Error"} body', async () => {
    const cases: [unknown, RegExp][] = [
      [{ From: { Email: 'a@b.test' }, Subject: 'x', Text: 'y' }, /To/],
      [{ From: { Email: 'a@b.test' }, To: [], Text: 'y' }, /To/],
      [{ To: [{ Email: 'c@d.test' }], Text: 'y' }, /From/],
      [{ From: { Email: 'not-an-address' }, To: [{ Email: 'c@d.test' }] }, /From/],
      [{ From: { Email: 'a@b.test' }, To: [{ Name: 'No address' }] }, /To/],
      [{ From: { Email: 'a@b.test' }, To: 'c@d.test' }, /To/],
      ['{not json', /JSON/],
      [[1, 2], /object/],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = await res.json();
      expect(err.Error).toMatch(message);
      expect(err.error).toBe(err.Error);
    }
    expect((await list()).total).toBe(3); // nothing was stored
  });

  it('searches by to:, from:, subject: (quoted), plain words and exclusions, with start and limit', async () => {
    const byTo = await searchFor('to:first@example.test');
    expect(byTo).toMatchObject({ total: 3, count: 1, messages_count: 1, start: 0 });
    expect(byTo.messages[0].Subject).toBe('First');
    expect((await searchFor('to:FIRST@example.test')).messages).toHaveLength(1); // case-insensitive
    expect((await searchFor('to:"Agent Smith"')).messages.map((m: Summary) => m.Subject)).toEqual(['New reply on #42']);
    expect((await searchFor('from:notify@tend.test')).messages).toHaveLength(1);
    expect((await searchFor('subject:"New reply"')).messages).toHaveLength(1);
    expect((await searchFor('654321')).messages.map((m: Summary) => m.Subject)).toEqual(['Second']);
    expect(
      (await searchFor('from:admin@email.com -to:second@example.test')).messages.map((m: Summary) => m.Subject),
    ).toEqual(['First']);
    expect((await searchFor('tag:tickets')).messages).toHaveLength(1);
    expect((await searchFor('to:nobody@example.test')).messages).toEqual([]);

    const paged = await searchFor('from:admin@email.com', '&start=1&limit=1');
    expect(paged).toMatchObject({ start: 1, count: 1, messages_count: 2 });
    expect(paged.messages[0].Subject).toBe('First');
    const page = await json('/api/v1/messages?start=1&limit=1');
    expect(page).toMatchObject({ total: 3, count: 1, start: 1 });
    expect(page.messages[0].Subject).toBe('Second');

    const empty = await api('/api/v1/search?query=');
    expect(empty.status).toBe(400);
    expect(await empty.text()).toBe('Error: no search query');
  });

  it('marks a message read when it is fetched, and answers unknown IDs with 404', async () => {
    const [first] = (await searchFor('to:first@example.test')).messages;
    expect(first.Read).toBe(false);
    const msg = await json(`/api/v1/message/${first.ID}`);
    expect(msg).toMatchObject({ Subject: 'First', Text: 'Your code is 123456.', HTML: '<p>Your code is 123456.</p>' });
    expect((await searchFor('to:first@example.test')).messages[0].Read).toBe(true);
    expect((await list()).unread).toBe(1);
    expect((await searchFor('is:unread')).messages.map((m: Summary) => m.Subject)).toEqual(['Second']);

    expect((await json('/api/v1/message/latest')).Subject).toBe('New reply on #42');
    expect((await json(`/api/v1/message/latest?query=${encodeURIComponent('to:second@example.test')}`)).Subject).toBe(
      'Second',
    );

    for (const id of ['doesnotexist', 'a'.repeat(22), '..%2F..%2Fetc%2Fpasswd']) {
      const res = await api(`/api/v1/message/${id}`);
      expect(res.status, id).toBe(404);
      expect(await res.text()).toBe('404 page not found');
    }
    expect((await api('/api/v1/nothing-here')).status).toBe(404);
    expect((await api('/api/v1/send')).status).toBe(405);
  });

  it('keeps mail, order and read flags across a restart, and skips a damaged file', async () => {
    writeFileSync(path.join(dir, 'mail', 'damaged.json'), '{"id": "half a mess');
    const before = await list();
    await mail.stop();
    mail = await start();
    const after = await list();
    expect(after.total).toBe(3);
    expect(after.messages).toEqual(before.messages);
  });

  it('deletes the listed IDs, then everything', async () => {
    const { messages } = await list();
    const del = await api('/api/v1/messages', {
      method: 'DELETE',
      body: JSON.stringify({ IDs: [messages[0].ID, 'unknownid'] }),
    });
    expect(del.status).toBe(200);
    expect(await del.text()).toBe('ok');
    expect((await list()).messages.map((m: Summary) => m.ID)).toEqual(messages.slice(1).map((m: Summary) => m.ID));
    expect((await api(`/api/v1/message/${messages[0].ID}`)).status).toBe(404);

    const all = await api('/api/v1/messages', { method: 'DELETE' });
    expect(await all.text()).toBe('ok');
    expect((await list()).total).toBe(0);

    await mail.stop(); // and they stay deleted
    mail = await start();
    expect((await list()).total).toBe(0);
  });

  it('shows an inbox page with the recipient, subject and code, escaping what it shows', async () => {
    await send(
      'inbox@example.test',
      '<script>alert(1)</script> Sign in',
      'Code 246810',
      '<p onclick="x()">Code <b>246810</b></p><script>alert(2)</script>',
    );
    const res = await api('/');
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).toContain('<title>Tend local mail</title>');
    expect(page).toContain('inbox@example.test');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Sign in');
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain('<span class="code" title="Code">246810</span>');

    const [m] = (await list()).messages;
    const view = await (await api(`/view/${m.ID}`)).text();
    const iframe = /<iframe[^>]*>/.exec(view)?.[0] ?? '';
    expect(iframe).toMatch(/sandbox="[^"]*"/);
    expect(iframe).not.toContain('allow-scripts');
    expect(iframe).not.toContain('allow-same-origin');
    expect(iframe).toContain('srcdoc="&lt;base target=&quot;_blank&quot;&gt;&lt;p onclick=&quot;x()&quot;&gt;');
    expect(view).not.toMatch(/<script/i);
    expect(view).toContain('<pre>Code 246810</pre>');
    expect((await api('/view/nope')).status).toBe(404);

    const found = await (await api(`/?q=${encodeURIComponent('to:inbox@example.test')}`)).text();
    expect(found).toContain('1 of 1 messages match');

    const clear = await api('/clear', { method: 'POST', redirect: 'manual' });
    expect(clear.status).toBe(303);
    expect(clear.headers.get('location')).toBe('/');
    expect(await (await api('/')).text()).toContain('No mail yet');
  });

  it('survives malformed requests', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const url = new URL(mail.url);
      import('node:net').then(({ connect }) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.end('GARBAGE \x00 HTTP/9\r\n\r\n'));
        let data = '';
        socket.on('data', (d) => (data += d));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect((await api('/api/v1/messages', { method: 'PUT', body: '{oops' })).status).toBe(400);
    expect((await api('/api/v1/messages', { method: 'PUT', body: JSON.stringify({ Read: true }) })).status).toBe(200);
    expect((await list()).total).toBe(0); // still answering
  });
});
