// The emails' one layout (supabase/functions/_shared/email-layout.tsx;
// docs/decisions/047-emails-that-carry-the-conversation.md): its HTML pinned by a snapshot, its size for
// a 5-message thread, its text part, what it escapes; and whom a workspace's emails come from
// (email-brand.ts; docs/decisions/046-sender-and-branding.md).
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { brandOf, senderOf } from '../../supabase/functions/_shared/email-brand.ts';
import { splitFiles } from '../../supabase/functions/_shared/email-files.ts';
import { fileLinkToken, readFileLinkToken } from '../../supabase/functions/_shared/tokens.ts';
import {
  initials,
  renderEmail,
  renderThreadEmail,
  ThreadEmail,
  threadEmailText,
  type EmailMessage,
  type ThreadEmailProps,
} from '../../supabase/functions/_shared/email-layout.tsx';
import { textToHtml } from '../../supabase/functions/_shared/message-html.ts';

const message = (author: string, text: string, fromTeam: boolean, when = '27 Nov 2026, 13:05'): EmailMessage => ({
  author,
  when,
  html: textToHtml(text),
  text,
  fromTeam,
});

const settings = {
  sender_name: 'Acme Support',
  sender_address: 'help@acme.example',
  accent_color: '#aa3300',
  logo_path: 'd0000000-0000-4000-8000-000000000a01/e0000000-0000-4000-8000-000000000001.png',
  footer: 'Acme Ltd · 1 Main Street',
  verified_domain: null as string | null,
};

const props = (over: Partial<ThreadEmailProps & { fine: string }> = {}): ThreadEmailProps & { fine: string } => ({
  brand: brandOf('Acme', settings, 'http://127.0.0.1:54321'),
  heading: 'Ann Lee replied to your request',
  ticket: { number: 12, subject: 'The printer says “paused”', status: 'Awaiting your reply' },
  message: message('Ann Lee', 'I resumed the queue.\n\nCould you try again?', true),
  files: [
    { name: 'steps.pdf', size: '120 KB' },
    { name: 'video.mp4', size: '14 MB', url: 'https://files.example/f/abc' },
  ],
  earlier: [message('Casey Customer', 'It says paused.\nNothing prints.', false, '27 Nov 2026, 12:40')],
  button: {
    label: 'View the conversation',
    url: 'https://app.example/auth/confirm?link=x',
    note: 'The button signs you in, once, within 24 hours. The conversation is always at',
    link: 'https://app.example/support/acme/requests/12',
  },
  answer: 'Reply to this email to answer.',
  fine: 'You get this email because you wrote to Acme Support.',
  ...over,
});

describe('the thread email', () => {
  it('renders as pinned: the brand, the request, the reply, the files, the button, the earlier messages, the footer', async () => {
    const html = renderEmail(createElement(ThreadEmail, props()));
    await expect(html).toMatchFileSnapshot('__snapshots__/thread-email.html.snap');
    expect(html.startsWith('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"')).toBe(true);
    // Table layout and inline styles, as clients without <style> need.
    expect(html).toContain('role="presentation"');
    expect(html).toContain('src="http://127.0.0.1:54321/storage/v1/object/public/branding/d0000000-');
    expect(html).toContain('border-top:4px solid #aa3300');
  });

  it('keeps a 5-message thread of long messages under 60 KB', () => {
    const long = 'A paragraph of a real support answer, with some detail about what was tried. '.repeat(20);
    const earlier = Array.from({ length: 5 }, (_, i) => message(`Person ${i}`, `${long}\n\n${long}`, i % 2 === 0));
    const html = renderEmail(createElement(ThreadEmail, props({ message: message('Ann Lee', long, true), earlier })));
    expect(html.length).toBeGreaterThan(6 * long.length);
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(60 * 1024);
  });

  it('escapes what people wrote: names, subjects and messages are text, never markup', () => {
    const html = renderEmail(
      createElement(
        ThreadEmail,
        props({
          ticket: { number: 1, subject: '<img src=x onerror=alert(1)>', status: 'Open' },
          message: message('<script>alert(1)</script>', '<b>bold?</b> & "quotes"', true),
        }),
      ),
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;b&gt;bold?&lt;/b&gt; &amp; &quot;quotes&quot;');
  });

  it('says the same in its text part: files named (links for those not attached), the history quoted', () => {
    const text = threadEmailText(props());
    expect(text).toContain('Request #12 "The printer says “paused”" (Awaiting your reply)');
    expect(text).toContain('I resumed the queue.\n\nCould you try again?');
    expect(text).toContain('- steps.pdf (120 KB, attached)');
    expect(text).toContain('- video.mp4 (14 MB): https://files.example/f/abc');
    expect(text).not.toContain('download link');
    expect(text).toContain('View the conversation: https://app.example/auth/confirm?link=x');
    expect(text).toContain('\nhttps://app.example/support/acme/requests/12\n');
    expect(text).toContain('Casey Customer, 27 Nov 2026, 12:40:\n> It says paused.\n> Nothing prints.');
    expect(text.trimEnd().endsWith('Acme Ltd · 1 Main Street')).toBe(true);
  });

  it('is the same bytes when its brand’s frame is rendered once and each email fills it (notify’s path)', () => {
    const plain = brandOf('Bolt', null, 'http://127.0.0.1:54321');
    const variants = [
      props(),
      // Another brand, then the first again: each its own frame.
      props({ brand: plain, files: [], earlier: [], button: undefined }),
      props({
        heading: `${'A long headline '.repeat(12)}<&"'>`,
        ticket: { number: 7, subject: 'a & b', status: 'Open' },
      }),
      props({ brand: plain, heading: 'Tend assigned #3 “Refund” to you in Bolt', earlier: [] }),
      props({ fine: 'Why: <settings> & "more"' }),
    ];
    for (const p of [...variants, ...variants])
      expect(renderThreadEmail(p)).toBe(renderEmail(createElement(ThreadEmail, p)));
  });

  it('draws initials from names and addresses', () => {
    expect(initials('Ann Lee')).toBe('AL');
    expect(initials('casey.jones@example.test')).toBe('CJ');
    expect(initials('Ünal')).toBe('Ü');
    expect(initials('')).toBe('?');
  });
});

describe('whom a workspace’s emails come from', () => {
  const fallback = 'Tend <support@tend.localhost>';
  it('the sender name at Tend’s address until the domain is verified, then at the workspace’s address', () => {
    expect(senderOf('Acme', settings, fallback)).toEqual({ name: 'Acme Support', address: 'support@tend.localhost' });
    expect(senderOf('Acme', { ...settings, verified_domain: 'acme.example' }, fallback)).toEqual({
      name: 'Acme Support',
      address: 'help@acme.example',
    });
    // Verified for another domain (the address changed since): Tend's address.
    expect(senderOf('Acme', { ...settings, verified_domain: 'old.example' }, fallback).address).toBe(
      'support@tend.localhost',
    );
    // No settings: the workspace's name.
    expect(senderOf('Acme', null, fallback)).toEqual({ name: 'Acme', address: 'support@tend.localhost' });
  });
});

describe('a reply’s files', () => {
  it('go with the email smallest first while the total fits; the rest are links', () => {
    const MB = 1024 * 1024;
    const f = (id: string, size: number) => ({ id, file_name: `${id}.pdf`, size });
    const { attached, linked } = splitFiles([f('a', 4 * MB), f('b', 7 * MB), f('c', 6 * MB), f('d', 1 * MB)]);
    // 1 + 4 MB fit; 6 more would make 11.
    expect(attached.map((x) => x.id)).toEqual(['a', 'd']);
    expect(linked.map((x) => x.id)).toEqual(['b', 'c']);
  });

  it('have links signed for one file, until their expiry', async () => {
    const id = 'e0000000-0000-4000-8000-000000000001';
    const until = new Date('2026-12-04T12:00:00Z');
    const token = await fileLinkToken('s3cret', id, until);
    expect(await readFileLinkToken('s3cret', token, new Date('2026-12-04T11:59:59Z'))).toEqual({ attachmentId: id });
    expect(await readFileLinkToken('s3cret', token, until)).toEqual({ error: 'expired' });
    expect(await readFileLinkToken('another', token, new Date('2026-11-30'))).toEqual({ error: 'invalid' });
    // A later expiry written over it: the MAC covers it.
    const [hex, , mac] = token.split('.');
    const stretched = `${hex}.${Math.floor(Date.parse('2030-01-01') / 1000).toString(36)}.${mac}`;
    expect(await readFileLinkToken('s3cret', stretched, new Date('2026-11-30'))).toEqual({ error: 'invalid' });
  });
});
