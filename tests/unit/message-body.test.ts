// A message's body for the threads and the emails (supabase/functions/_shared/message-html.ts, through
// the one sanitiser, markdown.ts): the team's Markdown renders, a requester's text stays as written, a
// message's own files are shown or linked by name, and no hostile input leaves anything active — in the
// page's HTML, the email's HTML or its text part.
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import {
  isMarkdownMessage,
  messageEmailHtml,
  messageHtml,
  messageText,
} from '../../supabase/functions/_shared/message-html.ts';
import type { FileRef } from '../../supabase/functions/_shared/markdown.ts';
import { threadHtml } from '../../app/lib/helpdesk/message-body.server.ts';

const ALLOWED_TAGS = new Set(
  'p br hr h2 h3 h4 h5 h6 strong em s del code pre blockquote ul ol li a img table thead tbody tr th td'.split(' '),
);

// The thread's files: an image shown from the page's file route, a PDF linked.
const pageFiles = (name: string): FileRef | null =>
  name === 'shot.png'
    ? { src: '/w/acme/tickets/7/files/1', href: '/w/acme/tickets/7/files/1' }
    : name === 'report.pdf'
      ? { href: '/w/acme/tickets/7/files/2' }
      : null;
// The email's: the image goes with it (cid:), a file too big is a signed link.
const emailFiles = (name: string): FileRef | null =>
  name === 'shot.png'
    ? { src: 'cid:1@tend.localhost' }
    : name === 'big.png'
      ? { href: 'https://project.example/functions/v1/file-link?t=abc' }
      : null;

/** Only allowed tags; no handler; links and images to http(s), mailto, this site's paths, or the file's cid. */
function expectInert(html: string, styles = false) {
  const parser = new Parser({
    onopentag(name, attribs) {
      expect(ALLOWED_TAGS, `<${name}> in ${html}`).toContain(name);
      for (const [attr, value] of Object.entries(attribs)) {
        expect(attr, `${attr} in ${html}`).not.toMatch(/^on/i);
        if (attr === 'href') expect(value, html).toMatch(/^(https?:|mailto:|\/(?![/\\])|#|\?)/i);
        if (attr === 'src') expect(value, html).toMatch(/^(\/w\/acme\/tickets\/7\/files\/1|cid:1@tend\.localhost)$/);
        // The email's own inline styles, nothing a writer typed.
        if (attr === 'style')
          expect(value, html).toMatch(styles ? /^(margin|font|max-width|text-align)[^<>"]*$/ : /^text-align:/);
      }
    },
  });
  parser.write(html);
  parser.end();
}

const hostile: [string, string][] = [
  ['a script tag', '<script>alert(1)</script>'],
  ['a script tag split over lines', '<scr\nipt>alert(1)</script>'],
  ['raw HTML with markup inside', '<div><b onclick="x()">**bold**</b></div>'],
  ['an event handler', '<img src=x onerror=alert(1)>'],
  ['a javascript: link', '[click](javascript:alert(1))'],
  ['a javascript: link, encoded', '[click](&#106;avascript:alert(1))'],
  ['a javascript: link, percent-encoded', '[click](javascript%3Aalert(1))'],
  ['a javascript: autolink', '<javascript:alert(1)>'],
  ['a data: link', '[click](data:text/html;base64,PHNjcmlwdD4=)'],
  ['a data: image', '![x](data:image/png;base64,iVBORw0KGgo=)'],
  ['a cid: image from the writer', '![x](cid:1@tend.localhost)'],
  ['a cid: link', '[x](cid:1@tend.localhost)'],
  ['an image from another site', '![pixel](https://tracker.test/p.gif)'],
  ['a file name that is a URL', '![x](attachment:https://evil.test/a.png)'],
  ['a file name with a quote', '![x](attachment:shot.png"onerror="alert(1))'],
  ['a file name with javascript:', '[x](attachment:javascript:alert(1))'],
  ['a file that is not the message’s', '![x](attachment:other.png)'],
  ['nested emphasis hiding a link', '**[x](javascript:alert(1))**'],
  ['a link inside an image’s alt', '![[x](javascript:alert(1))](attachment:shot.png)'],
  ['a reference link', '[click][x]\n\n[x]: javascript:alert(1)'],
  ['HTML in a code span', '`<script>alert(1)</script>`'],
  ['an SVG', '<svg onload=alert(1)><script>alert(1)</script></svg>'],
  ['an iframe', '<iframe src="https://evil.test"></iframe>'],
  ['a style attribute', '<p style="background:url(javascript:alert(1))">x</p>'],
  ['a protocol-relative link', '[x](//evil.test/a)'],
  ['a quote breaking out of href', '[x](https://ok.test/"onmouseover="alert(1))'],
  ['a mangled comment', '<!--><img src=x onerror=alert(1)>-->'],
];

describe('a message’s body', () => {
  it('renders the team’s Markdown: bold, italics, lists, links, code, quotes, line breaks kept', () => {
    const html = messageHtml({
      body: 'Hi **Ann**, _thanks_.\nSecond line\n\n- one\n- two\n\n1. first\n\n> quoted\n\n`code` and [docs](https://docs.test/a)',
      markdown: true,
    });
    expect(html).toContain('<strong>Ann</strong>');
    expect(html).toContain('<em>thanks</em>.<br />\nSecond line');
    expect(html).toContain('<ul>\n<li>one</li>\n<li>two</li>\n</ul>');
    expect(html).toContain('<ol>\n<li>first</li>\n</ol>');
    expect(html).toContain('<blockquote>\n<p>quoted</p>\n</blockquote>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<a href="https://docs.test/a" rel="noopener noreferrer">docs</a>');
  });

  it('shows a requester’s text as written: no Markdown, tags as text', () => {
    const html = messageHtml({ body: '**not bold** <b>x</b>\nline', markdown: false });
    expect(html).toBe('<p>**not bold** &lt;b&gt;x&lt;/b&gt;<br>line</p>');
    expect(messageText({ body: '**as typed**', markdown: false })).toBe('**as typed**');
  });

  it('is Markdown when anyone but the thread’s customers (its requester and followers) wrote it', () => {
    expect(isMarkdownMessage('agent', ['customer'])).toBe(true);
    expect(isMarkdownMessage('customer', ['customer'])).toBe(false);
    expect(isMarkdownMessage('follower', ['customer', 'follower'])).toBe(false);
  });

  it('shows the message’s own image and links its file, by name', () => {
    const html = messageHtml({
      body: 'See ![the screen](attachment:shot.png) and [the report](attachment:report.pdf).',
      markdown: true,
      files: pageFiles,
    });
    expect(html).toContain('<img src="/w/acme/tickets/7/files/1" alt="the screen" loading="lazy" />');
    expect(html).toContain('<a href="/w/acme/tickets/7/files/2">the report</a>');
  });

  it('finds a file whose name was percent-encoded (spaces)', () => {
    const html = messageHtml({
      body: '![x](attachment:my%20shot.png)',
      markdown: true,
      files: (name) => (name === 'my shot.png' ? { src: '/w/acme/tickets/7/files/1' } : null),
    });
    expect(html).toContain('<img src="/w/acme/tickets/7/files/1"');
  });

  it('in an email: the image by its cid, a file too big as a link, each element styled inline', () => {
    const html = messageEmailHtml({
      body: '**Hi**\n\n![screen](attachment:shot.png)\n\n![large](attachment:big.png)\n\n> quote\n\n- a',
      markdown: true,
      files: emailFiles,
    });
    expect(html).toContain('<img style="max-width:100%;height:auto;border:0" src="cid:1@tend.localhost" alt="screen"');
    expect(html).toContain(
      '<a href="https://project.example/functions/v1/file-link?t=abc" rel="noopener noreferrer">large</a>',
    );
    expect(html).toMatch(/<blockquote style="margin:0 0 12px;padding:0 0 0 12px;border-left:3px solid #d0d7de/);
    expect(html).toContain('<ul style="margin:0 0 12px;padding-left:24px">');
    expectInert(html, true);
  });

  it('as text: marks taken out, lists, quotes, links and images said in words', () => {
    const text = messageText({
      body: [
        'Hi **Ann**,\nthanks for _waiting_.',
        '',
        '- one\n- two\n  - nested',
        '',
        '3. third\n4. fourth',
        '',
        '> quoted\n> still',
        '',
        'See [the docs](https://docs.test/a), https://bare.test and ![screen](attachment:shot.png) ![large](attachment:big.png).',
        '',
        '```\nconst a = 1;\n```',
      ].join('\n'),
      markdown: true,
      files: emailFiles,
    });
    expect(text).toBe(
      [
        'Hi Ann,',
        'thanks for waiting.',
        '',
        '- one',
        '- two',
        '   - nested',
        '',
        '3. third',
        '4. fourth',
        '',
        '> quoted',
        '> still',
        '',
        'See the docs <https://docs.test/a>, https://bare.test and [image: screen] [image: large] <https://project.example/functions/v1/file-link?t=abc>.',
        '',
        'const a = 1;',
      ].join('\n'),
    );
  });

  for (const [what, input] of hostile) {
    it(`leaves nothing active of ${what} (thread, email)`, () => {
      expectInert(messageHtml({ body: input, markdown: true, files: pageFiles }));
      expectInert(messageEmailHtml({ body: input, markdown: true, files: emailFiles }), true);
      expectInert(messageHtml({ body: input, markdown: false }), true);
    });
  }
});

// A thread's page renders each message once and keeps it (app/lib/helpdesk/message-body.server.ts): what it
// sends again must be what it would render now, for this message's author, files and page.
describe('a thread’s message, rendered again', () => {
  const agent = { author_id: 'agent', attachments: [] };
  const files = (id: string, mime = 'image/png') => [{ id, file_name: 'shot.png', size: 1, mime_type: mime }];

  it('is the same HTML as rendering it afresh', () => {
    const body = '**Checked** the order.\nTracking: https://track.example/1';
    const fresh = messageHtml({ body, markdown: true, files: () => null });
    expect(threadHtml({ ...agent, body }, ['customer'], '/w/acme/tickets/7/files/')).toBe(fresh);
    expect(threadHtml({ ...agent, body }, ['customer'], '/w/acme/tickets/7/files/')).toBe(fresh);
  });

  it('follows who wrote it: the same text from a customer shows as written', () => {
    const body = '**not bold** <b>as typed</b>';
    expect(threadHtml({ ...agent, body }, ['customer'], '/f/')).toContain('<strong>not bold</strong>');
    expect(threadHtml({ ...agent, author_id: 'customer', body }, ['customer'], '/f/')).toBe(
      '<p>**not bold** &lt;b&gt;as typed&lt;/b&gt;</p>',
    );
  });

  it('links its own files: the same text on another ticket, or with another file, links that one', () => {
    const body = 'See ![the screen](attachment:shot.png)';
    const on7 = threadHtml({ ...agent, body, attachments: files('1') }, [], '/w/acme/tickets/7/files/');
    expect(on7).toContain('<img src="/w/acme/tickets/7/files/1"');
    expect(threadHtml({ ...agent, body, attachments: files('1') }, [], '/w/acme/tickets/8/files/')).toContain(
      '<img src="/w/acme/tickets/8/files/1"',
    );
    expect(threadHtml({ ...agent, body, attachments: files('2') }, [], '/w/acme/tickets/7/files/')).toContain(
      '<img src="/w/acme/tickets/7/files/2"',
    );
    // Not an image any more: linked, not shown.
    expect(
      threadHtml({ ...agent, body, attachments: files('1', 'application/pdf') }, [], '/w/acme/tickets/7/files/'),
    ).toBe('<p>See <a href="/w/acme/tickets/7/files/1">the screen</a></p>\n');
    expect(threadHtml({ ...agent, body }, [], '/w/acme/tickets/7/files/')).not.toContain('files/');
  });
});
