// A small web inbox for local mail: server-rendered, no scripts, no external assets, every value escaped.
import { codeIn, snippetOf, type Address, type StoredMail } from './store.ts';

export const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// Colours are checked for ≥ 4.5:1 contrast on their backgrounds (muted #4a5160 on #fff is 7.9:1).
const STYLE = `
  :root { color-scheme: light; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2430; background: #f6f7f9; }
  header { display: flex; flex-wrap: wrap; align-items: center; gap: .75rem 1.25rem; padding: .9rem 1.5rem; background: #fff; border-bottom: 1px solid #d9dde3; }
  header h1 { font-size: 1.2rem; margin: 0; margin-right: auto; }
  header h1 a { color: inherit; text-decoration: none; }
  header form { display: flex; gap: .5rem; margin: 0; }
  main { max-width: 64rem; margin: 1.5rem auto; padding: 0 1.5rem; }
  table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid #d9dde3; }
  th, td { text-align: left; padding: .6rem .9rem; border-bottom: 1px solid #e6e9ed; vertical-align: top; }
  th { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: #4a5160; background: #fafbfc; }
  td.subject { width: 45%; }
  tr.unread td { font-weight: 600; }
  .snippet { display: block; font-weight: 400; color: #4a5160; font-size: .9rem; overflow-wrap: anywhere; }
  a { color: #1d4ed8; }
  a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
  .code { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 700; letter-spacing: .12em; background: #eef2ff; color: #1e3a8a; padding: .1rem .4rem; border-radius: 4px; white-space: nowrap; }
  .muted { color: #4a5160; font-size: .9rem; }
  time { white-space: nowrap; }
  input[type=search] { font: inherit; padding: .35rem .6rem; border: 1px solid #8a91a0; border-radius: 6px; min-width: 17rem; }
  input::placeholder { color: #5f6675; }
  button { font: inherit; padding: .35rem .9rem; border-radius: 6px; border: 1px solid #4a5160; background: #fff; color: #1f2430; cursor: pointer; }
  button.danger { border-color: #b42318; color: #b42318; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; border: 1px solid #d9dde3; border-radius: 8px; padding: 1rem; font-size: .9rem; }
  iframe { width: 100%; height: 30rem; border: 1px solid #d9dde3; border-radius: 8px; background: #fff; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0 0 1rem; }
  dt { color: #4a5160; }
  dd { margin: 0; overflow-wrap: anywhere; }
  h2 { margin: .5rem 0 1rem; font-size: 1.4rem; }
  h3 { font-size: 1rem; margin: 1.5rem 0 .5rem; }
`;

function layout(title: string, body: string, query = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head><body>
<header><h1><a href="/">Tend local mail</a></h1>
<form method="get" action="/" role="search"><input type="search" name="q" value="${esc(query)}" aria-label="Search mail" placeholder="to:someone@example.test"><button type="submit">Search</button></form>
<form method="post" action="/clear"><button type="submit" class="danger">Delete all</button></form></header>
<main>${body}</main></body></html>`;
}

const people = (as: Address[]) => as.map((a) => (a.name ? `${a.name} <${a.email}>` : a.email)).join(', ');
const when = (iso: string) => `<time datetime="${esc(iso)}">${esc(iso.replace('T', ' ').slice(0, 19))} UTC</time>`;
const codeBadge = (m: StoredMail) => {
  const code = codeIn(m);
  return code ? `<span class="code" title="Code">${esc(code)}</span>` : '';
};

export function inboxPage(messages: StoredMail[], opts: { query?: string; total?: number } = {}): string {
  const { query = '', total = messages.length } = opts;
  const title = query ? `“${query}” · Tend local mail` : 'Tend local mail';
  if (!messages.length) {
    const empty = query
      ? `No mail matches <strong>${esc(query)}</strong>. <a href="/">Show all</a>`
      : 'No mail yet. Emails the local stack sends appear here.';
    return layout(title, `<p class="muted">${empty}</p>`, query);
  }
  const rows = messages
    .map(
      (m) => `<tr class="${m.read ? '' : 'unread'}"><td>${esc(m.to.map((t) => t.email).join(', '))}</td>
<td class="subject"><a href="/view/${esc(m.id)}">${esc(m.subject || '(no subject)')}</a><span class="snippet">${esc(snippetOf(m).slice(0, 120))}</span></td>
<td>${codeBadge(m)}</td><td class="muted">${when(m.created)}</td></tr>`,
    )
    .join('');
  const count = query
    ? `${messages.length} of ${total} messages match`
    : `${total} message${total === 1 ? '' : 's'}, newest first`;
  return layout(
    title,
    `<p class="muted">${esc(count)}</p>
<table><thead><tr><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Code</th><th scope="col">Received</th></tr></thead><tbody>${rows}</tbody></table>`,
    query,
  );
}

/** The text body with http(s) links made clickable (the magic link is usually in there). */
function linkified(text: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(/https?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/g)) {
    out += `${esc(text.slice(last, match.index))}<a href="${esc(match[0])}">${esc(match[0])}</a>`;
    last = match.index + match[0].length;
  }
  return out + esc(text.slice(last));
}

/** 2.0 MB, 12 KB, 80 bytes. */
const size = (n: number) =>
  n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;

/** The message's files, each a link to its bytes (Mailpit's part API) when the message is kept as it came. */
function fileList(m: StoredMail, linked: boolean): string {
  if (!m.attachments.length) return '';
  const items = m.attachments.map((a) => {
    const name = esc(a.fileName || a.contentId || `part ${a.partId}`);
    const label = linked ? `<a href="/api/v1/message/${esc(m.id)}/part/${esc(a.partId)}">${name}</a>` : name;
    return `<li>${label} <span class="muted">${esc(a.contentType)}, ${size(a.size)}${a.inline ? ', inline' : ''}</span></li>`;
  });
  return `<h3>Files</h3><ul>${items.join('')}</ul>`;
}

export function messagePage(m: StoredMail, opts: { filesLinked?: boolean } = {}): string {
  // Links in the HTML body open in a new tab: the frame is sandboxed (no scripts, no same-origin) and may only open popups.
  const srcdoc = `<base target="_blank">${m.html}`;
  const optional = (label: string, as: Address[]) => (as.length ? `<dt>${label}</dt><dd>${esc(people(as))}</dd>` : '');
  const code = codeBadge(m);
  return layout(
    `${m.subject || '(no subject)'} · Tend local mail`,
    `<p><a href="/">← All mail</a></p>
<h2>${esc(m.subject || '(no subject)')}</h2>
<dl><dt>From</dt><dd>${esc(people([m.from]))}</dd>
<dt>To</dt><dd>${esc(people(m.to))}</dd>${optional('Cc', m.cc)}${optional('Bcc', m.bcc)}${optional('Reply-To', m.replyTo)}
<dt>Received</dt><dd>${when(m.created)}</dd>${code ? `<dt>Code</dt><dd>${code}</dd>` : ''}${m.tags.length ? `<dt>Tags</dt><dd>${esc(m.tags.join(', '))}</dd>` : ''}</dl>
${m.html.trim() ? `<h3>HTML</h3><iframe title="HTML body" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="${esc(srcdoc)}"></iframe>` : ''}
<h3>Text</h3>${m.text ? `<pre>${linkified(m.text)}</pre>` : '<p class="muted">No text part.</p>'}
${fileList(m, opts.filesLinked ?? false)}`,
  );
}

export function notFoundPage(): string {
  return layout(
    'Not found · Tend local mail',
    '<h2>Not found</h2><p>That message does not exist (it may have been deleted). <a href="/">Back to all mail</a></p>',
  );
}
