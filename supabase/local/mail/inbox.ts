// A small web inbox for local mail: server-rendered, no scripts, every value escaped.
import { codeIn, type StoredMail } from './store.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
  :root { color-scheme: light; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, Segoe UI, Roboto, sans-serif; color: #1f2430; background: #f6f7f9; }
  header { display: flex; align-items: center; justify-content: space-between; gap: 1rem; padding: 1rem 1.5rem; background: #fff; border-bottom: 1px solid #d9dde3; }
  h1 { font-size: 1.25rem; margin: 0; }
  main { max-width: 60rem; margin: 1.5rem auto; padding: 0 1.5rem; }
  table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid #d9dde3; border-radius: 8px; overflow: hidden; }
  th, td { text-align: left; padding: .6rem .9rem; border-bottom: 1px solid #e6e9ed; vertical-align: top; }
  th { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: #4a5160; background: #fafbfc; }
  tr.unread td { font-weight: 600; }
  a { color: #1d4ed8; }
  a:focus-visible, button:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
  .code { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 700; letter-spacing: .15em; background: #eef2ff; color: #1e3a8a; padding: .1rem .4rem; border-radius: 4px; }
  .muted { color: #4a5160; font-size: .9rem; }
  button { font: inherit; padding: .4rem .9rem; border-radius: 6px; border: 1px solid #b42318; background: #fff; color: #b42318; cursor: pointer; }
  pre { white-space: pre-wrap; background: #fff; border: 1px solid #d9dde3; border-radius: 8px; padding: 1rem; }
  iframe { width: 100%; height: 28rem; border: 1px solid #d9dde3; border-radius: 8px; background: #fff; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
  dt { color: #4a5160; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head><body>
<header><h1><a href="/">Tend local mail</a></h1>
<form method="post" action="/clear"><button type="submit">Delete all</button></form></header>
<main>${body}</main></body></html>`;
}

const when = (iso: string) => new Date(iso).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';

export function inboxPage(messages: StoredMail[]): string {
  if (!messages.length) return layout('Tend local mail', '<p class="muted">No mail yet. Emails the local stack sends appear here.</p>');
  const rows = messages
    .map((m) => {
      const code = codeIn(m.text);
      return `<tr class="${m.read ? '' : 'unread'}"><td>${esc(m.to.map((t) => t.email).join(', '))}</td>
<td><a href="/view/${esc(m.id)}">${esc(m.subject || '(no subject)')}</a></td>
<td>${code ? `<span class="code">${esc(code)}</span>` : ''}</td><td class="muted">${esc(when(m.created))}</td></tr>`;
    })
    .join('');
  return layout(
    'Tend local mail',
    `<table><thead><tr><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Code</th><th scope="col">Received</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

export function messagePage(m: StoredMail): string {
  const code = codeIn(m.text);
  return layout(
    m.subject || 'Message',
    `<p><a href="/">← All mail</a></p>
<h2>${esc(m.subject || '(no subject)')}</h2>
<dl><dt>From</dt><dd>${esc(m.from.name ? `${m.from.name} <${m.from.email}>` : m.from.email)}</dd>
<dt>To</dt><dd>${esc(m.to.map((t) => t.email).join(', '))}</dd>
<dt>Received</dt><dd>${esc(when(m.created))}</dd>${code ? `<dt>Code</dt><dd><span class="code">${esc(code)}</span></dd>` : ''}</dl>
<h3>HTML</h3><iframe title="HTML body" sandbox srcdoc="${esc(m.html)}"></iframe>
<h3>Text</h3><pre>${esc(m.text)}</pre>`,
  );
}
