// Markdown (and HTML from outside) as HTML that is safe to put in a page: help center articles now,
// threads, emails and the portal later (docs/decisions/041-help-center.md). Server-only, so neither
// library reaches a browser. Two locks, each enough alone:
//   1. markdown-it with raw HTML off: tags typed in the text come out as text, and a link or image is
//      kept only when its URL is on the allow list below (anything else: its text alone);
//   2. sanitize-html over the result with an allow list of tags, attributes and URL schemes, which is
//      also what sanitizeHtml() does to HTML that comes from elsewhere (an inbound email).
// No script, style, event handler, iframe, form, SVG or MathML survives, nor a javascript:, data: or
// vbscript: URL.
import MarkdownIt from 'markdown-it';

type Markdown = ReturnType<typeof MarkdownIt>;
import sanitize from 'sanitize-html';

export interface RenderOptions {
  /**
   * URL prefixes an image may be loaded from (absolute, e.g. the public URL of the `help` bucket). An
   * image from anywhere else is shown as its alt text: no tracking pixels, and the page's
   * Content-Security-Policy would block it anyway.
   */
  imagePrefixes?: readonly string[];
}

/** Link targets a reader may follow: the web, email, and paths or fragments on this site. */
const LINK_SCHEMES = ['http', 'https', 'mailto'];

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

function markdownFor(imagePrefixes: readonly string[]): Markdown {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
  md.validateLink = isSafeHref;
  const defaultImage = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const src = String(token.attrGet('src') ?? '');
    if (!isAllowedImage(src, imagePrefixes)) return md.utils.escapeHtml(token.content);
    token.attrSet('loading', 'lazy');
    return defaultImage(tokens, idx, options, env, self);
  };
  // The page's title is its <h1>: a heading of the body is at least an <h2> ("#" and "##" alike).
  md.renderer.rules.heading_open = (tokens, idx) => `<h${headingLevel(tokens[idx]!.tag)}>`;
  md.renderer.rules.heading_close = (tokens, idx) => `</h${headingLevel(tokens[idx]!.tag)}>\n`;
  md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
    const token = tokens[idx]!;
    // Off-site links don't tell the other site where the reader came from.
    if (/^[a-z][a-z0-9+.-]*:/i.test(String(token.attrGet('href') ?? ''))) token.attrSet('rel', 'noopener noreferrer');
    return self.renderToken(tokens, idx, options);
  };
  return md;
}

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
  allowedSchemesByTag: { img: ['https', 'http'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // What isn't allowed goes with its content where the content is code or markup, never shown as text.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'svg', 'math', 'iframe', 'object', 'template'],
};

/** HTML from outside (an email, a pasted page) reduced to the same allow list as rendered Markdown. */
export function sanitizeHtml(html: string, options: RenderOptions = {}): string {
  const prefixes = options.imagePrefixes ?? [];
  return sanitize(html, {
    ...SANITIZE,
    exclusiveFilter: (frame) => frame.tag === 'img' && !isAllowedImage(frame.attribs.src ?? '', prefixes),
    transformTags: {
      a: (tagName, { href, ...attribs }) => ({
        tagName,
        attribs: href !== undefined && isSafeHref(href) ? { href, ...attribs } : attribs,
      }),
    },
  });
}

const renderers = new Map<string, Markdown>();

/** Markdown as safe HTML (headings from <h2> on, links on the allow list, images from `imagePrefixes`). */
export function renderMarkdown(markdown: string, options: RenderOptions = {}): string {
  const prefixes = options.imagePrefixes ?? [];
  const key = prefixes.join('\n');
  let md = renderers.get(key);
  if (!md) {
    md = markdownFor(prefixes);
    renderers.set(key, md);
  }
  return sanitizeHtml(md.render(markdown), options);
}

// Rendered articles by a key that changes with the text (its id and updated_at): a page view renders
// nothing it rendered before. At most CACHE_MAX, the least recently used leaving first.
const CACHE_MAX = 500;
const cache = new Map<string, string>();

/** renderMarkdown, remembered under `key` (which must change whenever `markdown` or the options do). */
export function renderMarkdownCached(key: string, markdown: string, options: RenderOptions = {}): string {
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const html = renderMarkdown(markdown, options);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, html);
  return html;
}
