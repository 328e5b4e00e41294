// The local mail catcher, through its Mailpit API and inbox page.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMail, type RunningMail } from '../../supabase/local/mail/index.ts';

describe('mail catcher', () => {
  let dir: string;
  let mail: RunningMail;
  const lines: string[] = [];
  const start = () => startMail({ port: 0, dir, log: (l) => lines.push(l) });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tend-mail-'));
    chmodSync(dir, 0o755);
    mail = await start();
  });
  afterAll(async () => {
    await mail?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = (p: string, init?: RequestInit) => fetch(`${mail.url}${p}`, init);
  const send = (to: string, subject: string, text: string) =>
    mail.mailer.send({ from: { name: 'Admin', email: 'admin@email.com' }, to: [{ email: to }], subject, text, html: `<p>${text}</p>` });

  it('keeps a sent email, lists it newest first and prints one line with the recipient and code', async () => {
    await send('first@example.test', 'First', 'Your code is 123456.');
    await send('second@example.test', 'Second', 'Your code is 654321.');
    const list = await (await api('/api/v1/messages')).json();
    expect(list.total).toBe(2);
    expect(list.messages.map((m: { Subject: string }) => m.Subject)).toEqual(['Second', 'First']);
    expect(list.messages[0]).toMatchObject({ Read: false, From: { Name: 'Admin', Address: 'admin@email.com' }, To: [{ Name: '', Address: 'second@example.test' }] });
    expect(lines).toContain('[mail] to second@example.test · code 654321 · "Second"');
  });

  it('searches by recipient and returns one message with its bodies, marking it read', async () => {
    const found = await (await api(`/api/v1/search?query=${encodeURIComponent('to:first@example.test')}`)).json();
    expect(found.messages).toHaveLength(1);
    const msg = await (await api(`/api/v1/message/${found.messages[0].ID}`)).json();
    expect(msg).toMatchObject({ Subject: 'First', Text: 'Your code is 123456.', HTML: '<p>Your code is 123456.</p>' });
    const again = await (await api(`/api/v1/search?query=${encodeURIComponent('subject:"First"')}`)).json();
    expect(again.messages[0].Read).toBe(true);
    expect((await (await api('/api/v1/search?query=to:nobody@example.test')).json()).messages).toEqual([]);
  });

  it('accepts email from other senders through the send API and refuses bad input with 400', async () => {
    const ok = await api('/api/v1/send', {
      method: 'POST',
      body: JSON.stringify({ From: { Email: 'notify@tend.test', Name: 'Tend' }, To: [{ Email: 'agent@example.test' }], Subject: 'New reply', Text: 'Hello' }),
    });
    expect(ok.status).toBe(200);
    const { ID } = await ok.json();
    expect((await (await api(`/api/v1/message/${ID}`)).json()).From).toEqual({ Name: 'Tend', Address: 'notify@tend.test' });
    const noTo = await api('/api/v1/send', { method: 'POST', body: JSON.stringify({ From: { Email: 'a@b.test' }, Subject: 'x', Text: 'y' }) });
    expect(noTo.status).toBe(400);
    expect((await noTo.json()).error).toMatch(/To/);
    expect((await api('/api/v1/send', { method: 'POST', body: '{not json' })).status).toBe(400);
    expect((await api('/api/v1/message/doesnotexist')).status).toBe(404);
  });

  it('keeps mail across a restart, then deletes some and all', async () => {
    await mail.stop();
    mail = await start();
    const list = await (await api('/api/v1/messages')).json();
    expect(list.total).toBe(3);
    const del = await api('/api/v1/messages', { method: 'DELETE', body: JSON.stringify({ IDs: [list.messages[0].ID] }) });
    expect(await del.text()).toBe('ok');
    expect((await (await api('/api/v1/messages')).json()).total).toBe(2);
    await api('/api/v1/messages', { method: 'DELETE' });
    expect((await (await api('/api/v1/messages')).json()).total).toBe(0);
  });

  it('shows an inbox page with the subject, recipient and code, escaping what it shows', async () => {
    await send('inbox@example.test', '<script>alert(1)</script> Sign in', 'Code 246810');
    const page = await (await api('/')).text();
    expect(page).toContain('inbox@example.test');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Sign in');
    expect(page).not.toContain('<script>alert(1)');
    expect(page).toContain('246810');
    const clear = await api('/clear', { method: 'POST', redirect: 'manual' });
    expect(clear.status).toBe(303);
    expect(await (await api('/')).text()).toContain('No mail yet');
  });
});
