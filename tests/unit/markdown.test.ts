// The Markdown renderer (app/lib/markdown/render.server.ts): what articles may hold renders, and no
// hostile input leaves a way to run script, load something from elsewhere or leave the page.
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { renderMarkdown, renderMarkdownCached, sanitizeHtml } from '../../app/lib/markdown/render.server.ts';

const BUCKET = 'https://project.example/storage/v1/object/public/help/';
const render = (markdown: string) => renderMarkdown(markdown, { imagePrefixes: [BUCKET] });

const ALLOWED_TAGS = new Set(
  'p br hr h2 h3 h4 h5 h6 strong em s del code pre blockquote ul ol li a img table thead tbody tr th td'.split(' '),
);

/**
 * What no output may contain, whatever the input, read as a browser would (a real HTML parser, not a
 * pattern over the text, since escaped text such as "&lt;script&gt;" is harmless): only the allowed
 * tags, no event handler, and links and images only to http(s), mailto or this site's paths.
 */
function expectInert(html: string) {
  const parser = new Parser({
    onopentag(name, attribs) {
      expect(ALLOWED_TAGS, `<${name}> in ${html}`).toContain(name);
      for (const [attr, value] of Object.entries(attribs)) {
        expect(attr, `${attr} in ${html}`).not.toMatch(/^on/i);
        if (attr === 'href' || attr === 'src') {
          expect(value, `${attr} in ${html}`).toMatch(/^(https?:|mailto:|\/(?![/\\])|#|\?)/i);
        }
        if (attr === 'style') expect(value).toMatch(/^text-align:(left|right|center)$/);
      }
    },
  });
  parser.write(html);
  parser.end();
}

describe('renderMarkdown', () => {
  it('renders what articles are written with: headings (# as ##), lists, links, code, tables, images from the bucket', () => {
    const html = render(
      [
        '# Setting up',
        '## Step one',
        'Some **bold**, _em_ and `code`, a [link](https://example.com/a) and [a page](/support/acme/help).',
        '',
        '- one',
        '- two',
        '',
        '1. first',
        '',
        '```js',
        'const a = 1 < 2;',
        '```',
        '',
        '| a | b |',
        '|:--|--:|',
        '| 1 | 2 |',
        '',
        `![A screenshot](${BUCKET}ws/1/shot.png)`,
      ].join('\n'),
    );
    expect(html).toContain('<h2>Setting up</h2>');
    expect(html).toContain('<h2>Step one</h2>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<em>em</em>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<a href="https://example.com/a" rel="noopener noreferrer">link</a>');
    expect(html).toContain('<a href="/support/acme/help">a page</a>');
    expect(html).toContain('<ul>\n<li>one</li>');
    expect(html).toContain('<ol>\n<li>first</li>');
    expect(html).toContain('<pre><code class="language-js">const a = 1 &lt; 2;\n</code></pre>');
    expect(html).toContain('<th style="text-align:left">a</th>');
    expect(html).toContain('<td style="text-align:right">2</td>');
    expect(html).toContain(`<img src="${BUCKET}ws/1/shot.png" alt="A screenshot" loading="lazy" />`);
  });

  // A table of hostile inputs: each must come out inert, and, where said, as this text.
  const hostile: [string, string, RegExp?][] = [
    ['a script tag', '<script>alert(1)</script>', /&lt;script&gt;alert\(1\)&lt;\/script&gt;/],
    ['a script tag in a block', '<div>\n<script>alert(1)</script>\n</div>'],
    ['an event handler', '<img src=x onerror=alert(1)>', /&lt;img src=x onerror=alert\(1\)&gt;/],
    ['an event handler on a link', '<a href="https://x.test" onclick="alert(1)">x</a>'],
    ['a javascript: link', '[click](javascript:alert(1))', /\[click\]\(javascript:alert\(1\)\)/],
    ['a javascript: link with case and spaces', '[click]( JaVaScRiPt:alert(1) )'],
    ['a javascript: link with an entity', '[click](javascript&#58;alert(1))'],
    ['a javascript: link with a tab', '[click](java\tscript:alert(1))'],
    ['an autolink', '<javascript:alert(1)>'],
    ['a reference link', '[click][x]\n\n[x]: javascript:alert(1)'],
    ['a vbscript: link', '[click](vbscript:msgbox(1))'],
    ['a data: link', '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)'],
    ['a data: image (shown as typed)', '![x](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=)', /^<p>!\[x\]\(data:/],
    ['an image from another site', '![pixel](https://tracker.test/p.gif)', /^<p>pixel<\/p>\n?$/],
    ['an image climbing out of the bucket', `![x](${BUCKET}../../private/secret.png)`, /^<p>x<\/p>\n?$/],
    ['an image with an event handler in its title', `![x](${BUCKET}a.png "a\\" onerror=\\"alert(1)")`],
    ['an SVG', '<svg><script>alert(1)</script></svg>'],
    ['an SVG image', '![x](https://project.example/storage/v1/object/public/help/a.svg#<svg onload=alert(1)>)'],
    ['an iframe', '<iframe src="https://evil.test"></iframe>'],
    ['a style tag', '<style>body{display:none}</style>'],
    ['a protocol-relative link', '[x](//evil.test/a)'],
    ['a backslash link', '[x](/\\evil.test/a)'],
    ['a form', '<form action="https://evil.test"><input name=a></form>'],
    ['a base tag', '<base href="https://evil.test/">'],
    ['a meta refresh', '<meta http-equiv="refresh" content="0;url=https://evil.test">'],
    ['markdown inside an HTML attribute', '<a href="javascript:alert(1)">[x](https://ok.test)</a>'],
    ['a link with a quote breaking out', '[x](https://ok.test/"onmouseover="alert(1))'],
  ];
  for (const [what, input, text] of hostile) {
    it(`leaves nothing active of ${what}`, () => {
      const html = render(input);
      expectInert(html);
      if (text) expect(html).toMatch(text);
    });
  }

  it('keeps a mailto: link and a fragment, and drops an href it refuses but keeps the words', () => {
    expect(render('[mail us](mailto:help@acme.test)')).toContain('<a href="mailto:help@acme.test"');
    expect(render('[top](#top)')).toContain('<a href="#top">top</a>');
  });

  it('remembers a rendering under its key', () => {
    const first = renderMarkdownCached('article:1:v1', '**a**');
    expect(first).toContain('<strong>a</strong>');
    // The same key gives what was rendered for it; a new key renders again.
    expect(renderMarkdownCached('article:1:v1', '**changed**')).toBe(first);
    expect(renderMarkdownCached('article:1:v2', '**changed**')).toContain('<strong>changed</strong>');
  });
});

describe('sanitizeHtml (HTML from outside)', () => {
  const hostileHtml = [
    '<p onclick="alert(1)">hi</p>',
    '<a href="javascript:alert(1)">x</a>',
    '<a href=" javascript:alert(1)">x</a>',
    '<img src="https://tracker.test/p.gif">',
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    '<script>alert(1)</script>',
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
    '<table><tr><td style="background:url(javascript:alert(1))">x</td></tr></table>',
    '<object data="https://evil.test/x.swf"></object>',
    '<a href="//evil.test">x</a>',
  ];
  for (const input of hostileHtml) {
    it(`makes ${JSON.stringify(input)} inert`, () => {
      const html = sanitizeHtml(input, { imagePrefixes: [BUCKET] });
      expectInert(html);
      expect(html).not.toMatch(/style="[^"]*url/i);
    });
  }

  it('keeps text and allowed markup', () => {
    expect(sanitizeHtml('<p>Hello <strong>there</strong> <a href="https://ok.test">ok</a></p>')).toBe(
      '<p>Hello <strong>there</strong> <a href="https://ok.test">ok</a></p>',
    );
  });
});

describe('the help center’s limits in messages', () => {
  it('article_too_long names ARTICLE_BODY_MAX_LENGTH', async () => {
    const { errorMessage } = await import('../../app/lib/errors/catalogue.server.ts');
    const { ARTICLE_BODY_MAX_LENGTH } = await import('../../app/lib/help/limits.ts');
    expect(errorMessage('article_too_long')).toContain(ARTICLE_BODY_MAX_LENGTH.toLocaleString('en'));
  });
});
