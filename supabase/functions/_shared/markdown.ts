// The one Markdown renderer and sanitiser: help center articles, the agent's and the portal's threads
// (the app, in Node) and the emails (notify, in Deno: the import map pins the same versions as
// package.json). Server-only: neither library reaches a browser. Two locks, each enough alone:
//   1. markdown-it with raw HTML off: tags typed in the text come out as text, and a link or image is
//      kept only when its URL is on the allow list below (anything else: its text alone);
//   2. sanitize-html over the result with an allow list of tags, attributes and URL schemes, which is
//      also what sanitizeHtml() does to HTML that comes from elsewhere (an inbound email).
// No script, style, event handler, iframe, form, SVG or MathML survives, nor a javascript:, data: or
// vbscript: URL (docs/decisions/056-rich-replies-one-sanitiser.md).
import MarkdownIt from 'markdown-it';
import sanitize from 'sanitize-html';

type Markdown = ReturnType<typeof MarkdownIt>;

/** Where a file of the message is, for `attachment:<name>` in its Markdown: shown (`src`), linked (`href`). */
export interface FileRef {
  src?: string;
  href?: string;
}

export interface RenderOptions {
  /**
   * URL prefixes an image may be loaded from (absolute, e.g. the public URL of the `help` bucket). An
   * image from anywhere else is shown as its alt text: no tracking pixels, and the page's
   * Content-Security-Policy would block it anyway.
   */
  imagePrefixes?: readonly string[];
  /** Line breaks kept as typed (messages); an article joins its lines into paragraphs, as Markdown does. */
  breaks?: boolean;
  /** The message's own files by name: `![alt](attachment:<name>)` and `[text](attachment:<name>)`. */
  files?: (name: string) => FileRef | null;
}

/** Link targets a reader may follow: the web, email, and paths or fragments on this site. */
const LINK_SCHEMES = ['http', 'https', 'mailto'];
/** A message's reference to one of its files (the composer writes them for pasted images). */
const ATTACHMENT = /^attachment:(.+)$/i;

function isSafeHref(url: string): boolean {
  const trimmed = url.trim();
  // A path on this site ("/support/…", "#heading", "?q=") — but not "//host", which is another site.
  if (/^(\/(?![/\\])|#|\?)/.test(trimmed)) return true;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  return scheme !== undefined && LINK_SCHEMES.includes(scheme);
}

function isAllowedImage(url: string, prefixes: readonly string[]): boolean {
  const trimmed = url.trim();
  // Compared after resolving dot segments: ".." can't climb out of the allowed folder.
  let resolved: string;
  try {
    resolved = new URL(trimmed).href;
  } catch {
    return false;
  }
  return prefixes.some((prefix) => resolved.startsWith(prefix) && trimmed.startsWith(prefix));
}

/** Per render: the options, and the image sources this render made itself (the message's own files). */
interface RenderEnv {
  [key: string | symbol]: unknown;
  options: RenderOptions;
  trusted: Set<string>;
}

/** markdown-it's env, as this module passes it to every render. */
const envOf = (given: unknown) => given as RenderEnv;

function fileOf(url: string, env: RenderEnv): { name: string; ref: FileRef | null } | null {
  const m = ATTACHMENT.exec(url.trim());
  if (!m) return null;
  let name = m[1]!;
  try {
    name = decodeURIComponent(name);
  } catch {
    // Not percent-encoded after all: the name as written.
  }
  return { name, ref: env.options.files?.(name) ?? null };
}

function markdownFor(breaks: boolean): Markdown {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks });
  md.validateLink = (url) => isSafeHref(url) || ATTACHMENT.test(url.trim());
  const escapeText = md.utils.escapeHtml;
  const defaultImage = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, options, given, self) => {
    const env = envOf(given);
    const token = tokens[idx]!;
    const src = String(token.attrGet('src') ?? '');
    const file = fileOf(src, env);
    if (file) {
      const alt = token.content || file.name;
      if (file.ref?.src) {
        token.attrSet('src', file.ref.src);
        env.trusted.add(file.ref.src);
      } else if (file.ref?.href)
        return `<a href="${escapeText(file.ref.href)}"${relOf(file.ref.href)}>${escapeText(alt)}</a>`;
      else return escapeText(alt);
    } else if (!isAllowedImage(src, env.options.imagePrefixes ?? [])) return escapeText(token.content);
    token.attrSet('loading', 'lazy');
    return defaultImage(tokens, idx, options, env, self);
  };
  // The page's title is its <h1>: a heading of the body is at least an <h2> ("#" and "##" alike).
  md.renderer.rules.heading_open = (tokens, idx) => `<h${headingLevel(tokens[idx]!.tag)}>`;
  md.renderer.rules.heading_close = (tokens, idx) => `</h${headingLevel(tokens[idx]!.tag)}>\n`;
  md.renderer.rules.link_open = (tokens, idx, options, given, self) => {
    const token = tokens[idx]!;
    const file = fileOf(String(token.attrGet('href') ?? ''), envOf(given));
    // A file that can't be linked: its text alone (an <a> without href, which the sanitiser keeps as text).
    if (file) token.attrs = file.ref?.href ? [['href', file.ref.href]] : [];
    if (relOf(String(token.attrGet('href') ?? ''))) token.attrSet('rel', 'noopener noreferrer');
    return self.renderToken(tokens, idx, options);
  };
  return md;
}

// Off-site links don't tell the other site where the reader came from.
const relOf = (href: string) => (/^[a-z][a-z0-9+.-]*:/i.test(href) ? ' rel="noopener noreferrer"' : '');

const headingLevel = (tag: string) => Math.max(Number(tag.slice(1)), 2);

const SANITIZE: sanitize.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'strong',
    'em',
    's',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'img',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'loading'],
    ol: ['start'],
    code: ['class'],
    th: ['style'],
    td: ['style'],
  },
  allowedClasses: { code: [/^language-[\w-]+$/] },
  // markdown-it aligns table columns with style="text-align:…".
  allowedStyles: { '*': { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: LINK_SCHEMES,
  // cid: an image that goes with the email (a message's own file, never from outside: see `trusted`).
  allowedSchemesByTag: { img: ['https', 'http', 'cid'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // What isn't allowed goes with its content where the content is code or markup, never shown as text.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'svg', 'math', 'iframe', 'object', 'template'],
};

function clean(html: string, prefixes: readonly string[], trusted: ReadonlySet<string>): string {
  return sanitize(html, {
    ...SANITIZE,
    exclusiveFilter: (frame) =>
      frame.tag === 'img' &&
      !trusted.has(frame.attribs.src ?? '') &&
      !isAllowedImage(frame.attribs.src ?? '', prefixes),
    transformTags: {
      a: (tagName, { href, ...attribs }) => ({
        tagName,
        attribs: href !== undefined && isSafeHref(href) ? { href, ...attribs } : attribs,
      }),
    },
  });
}

/** HTML from outside (an email, a pasted page) reduced to the same allow list as rendered Markdown. */
export function sanitizeHtml(html: string, options: RenderOptions = {}): string {
  return clean(html, options.imagePrefixes ?? [], new Set());
}

const renderers = new Map<boolean, Markdown>();
const renderer = (breaks: boolean) => {
  let md = renderers.get(breaks);
  if (!md) {
    md = markdownFor(breaks);
    renderers.set(breaks, md);
  }
  return md;
};

/** Markdown as safe HTML (headings from <h2> on, links on the allow list, images from `imagePrefixes` or `files`). */
export function renderMarkdown(markdown: string, options: RenderOptions = {}): string {
  const env: RenderEnv = { options, trusted: new Set() };
  return clean(renderer(options.breaks ?? false).render(markdown, env), options.imagePrefixes ?? [], env.trusted);
}

type Token = ReturnType<Markdown['parse']>[number];

/**
 * Markdown as plain text, for an email's text part: the words without their marks, lists with their
 * bullets and numbers, quotes with "> ", links as "text <url>", images as "[image: alt]".
 */
export function markdownToText(markdown: string, options: RenderOptions = {}): string {
  const env: RenderEnv = { options, trusted: new Set() };
  const tokens = renderer(options.breaks ?? false).parse(markdown, env);
  const lines: string[] = [];
  const quotes: string[] = [];
  const lists: { ordered: boolean; n: number }[] = [];
  let bullet = '';
  const emit = (text: string) => {
    const indent = '   '.repeat(Math.max(lists.length - 1, 0));
    text.split('\n').forEach((line, i) => {
      lines.push(`${quotes.join('')}${indent}${i === 0 ? bullet : ' '.repeat(bullet.length)}${line}`.trimEnd());
    });
    bullet = '';
  };
  const blank = () => {
    if (lines.length && lines.at(-1) !== quotes.join('').trimEnd()) lines.push(quotes.join('').trimEnd());
  };
  for (const t of tokens) {
    if (t.type === 'blockquote_open') quotes.push('> ');
    else if (t.type === 'blockquote_close') {
      quotes.pop();
      // The quote's last blank line is the blank after it.
      if (lines.at(-1)?.startsWith('>') && !lines.at(-1)!.replace(/[> ]/g, ''))
        lines[lines.length - 1] = quotes.join('').trimEnd();
    } else if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open')
      lists.push({ ordered: t.type === 'ordered_list_open', n: Number(t.attrGet('start') ?? 1) - 1 });
    else if (t.type === 'bullet_list_close' || t.type === 'ordered_list_close') {
      lists.pop();
      if (!lists.length) blank();
    } else if (t.type === 'list_item_open') {
      const list = lists.at(-1)!;
      list.n += 1;
      bullet = list.ordered ? `${list.n}. ` : '- ';
    } else if (t.type === 'inline') emit(inlineText(t.children ?? [], env));
    else if (t.type === 'fence' || t.type === 'code_block') {
      emit(t.content.replace(/\n$/, ''));
      blank();
    } else if ((t.type === 'paragraph_close' && !lists.length) || t.type === 'heading_close') blank();
    else if (t.type === 'hr') {
      emit('----');
      blank();
    }
  }
  while (lines.at(-1) === '') lines.pop();
  return lines.join('\n');
}

function inlineText(children: Token[], env: RenderEnv): string {
  let out = '';
  const links: { href: string; at: number }[] = [];
  for (const c of children) {
    if (c.type === 'text' || c.type === 'code_inline') out += c.content;
    else if (c.type === 'softbreak' || c.type === 'hardbreak') out += '\n';
    else if (c.type === 'image') {
      const file = fileOf(String(c.attrGet('src') ?? ''), env);
      const alt = c.content || file?.name || 'image';
      out += file?.ref?.href && !file.ref.src ? `[image: ${alt}] <${file.ref.href}>` : `[image: ${alt}]`;
    } else if (c.type === 'link_open') {
      const href = String(c.attrGet('href') ?? '');
      const file = fileOf(href, env);
      links.push({ href: file ? (file.ref?.href ?? '') : href, at: out.length });
    } else if (c.type === 'link_close') {
      const link = links.pop();
      const text = link ? out.slice(link.at) : '';
      // A bare URL (linkify, <https://…>) is its own text; mailto: shows the address it is.
      if (link?.href && link.href !== text && link.href !== `mailto:${text}`) out += ` <${link.href}>`;
    }
  }
  return out;
}
