// The composer's formatting with JavaScript, loaded on its first focus (composer.tsx): the toolbar's
// buttons and Ctrl/Cmd+B, I, K write Markdown around the selection (the server renders it, one
// sanitiser: supabase/functions/_shared/markdown.ts), and an image pasted or dropped into the composer
// (it joins the files, attachments-enhance.ts) is written where the cursor is as
// ![name](attachment:name), which the thread and the email show in place. Plain DOM: React renders
// the toolbar and leaves the textarea's text to the browser.

/** The toolbar's buttons, by name (their data-md, composer.tsx). */
type Tool = 'Bold' | 'Italic' | 'Link' | 'Code' | 'Quote' | 'Bulleted list' | 'Numbered list';

const KEYS: Record<string, Tool> = { b: 'Bold', i: 'Italic', k: 'Link' };
const WRAPS: Partial<Record<Tool, string>> = { Bold: '**', Italic: '_', Code: '`' };

/** Replaces the selection with `text` (undoable where the browser allows), then selects [from, to) of it. */
function write(area: HTMLTextAreaElement, start: number, end: number, text: string, from: number, to: number) {
  area.focus();
  area.setSelectionRange(start, end);
  // insertText keeps the browser's undo; elsewhere setRangeText, and the input event React and the
  // draft keeper listen for.
  if (!document.execCommand('insertText', false, text)) {
    area.setRangeText(text, start, end, 'end');
    area.dispatchEvent(new Event('input', { bubbles: true }));
  }
  area.setSelectionRange(start + from, start + to);
}

/** Applies a tool to the textarea's selection. */
export function format(area: HTMLTextAreaElement, tool: Tool) {
  const { selectionStart: start, selectionEnd: end, value } = area;
  const selected = value.slice(start, end);
  const wrap = WRAPS[tool];
  if (wrap && !(tool === 'Code' && selected.includes('\n'))) {
    // Again on a wrapped selection takes the marks off.
    if (value.slice(start - wrap.length, start) === wrap && value.slice(end, end + wrap.length) === wrap)
      return write(area, start - wrap.length, end + wrap.length, selected, 0, selected.length);
    const inner = selected || tool.toLowerCase();
    return write(area, start, end, `${wrap}${inner}${wrap}`, wrap.length, wrap.length + inner.length);
  }
  if (tool === 'Link') {
    // A selected address becomes the link's target; other text its words, with the address to type.
    if (/^https?:\/\/\S+$/.test(selected)) return write(area, start, end, `[](${selected})`, 1, 1);
    const words = selected || 'text';
    return write(area, start, end, `[${words}](https://)`, words.length + 3, words.length + 11);
  }
  if (tool === 'Code') return write(area, start, end, `\`\`\`\n${selected}\n\`\`\``, 4, 4 + selected.length);
  // Block tools act on whole lines.
  const from = value.lastIndexOf('\n', start - 1) + 1;
  const last = end > start && value[end - 1] === '\n' ? end - 1 : end;
  const lineEnd = value.indexOf('\n', last);
  const to = lineEnd < 0 ? value.length : lineEnd;
  const lines = value.slice(from, to).split('\n');
  const mark = (i: number) => (tool === 'Quote' ? '> ' : tool === 'Bulleted list' ? '- ' : `${i + 1}. `);
  const marked = /^(> |- |\d+\. )/;
  const text = lines.every((l) => marked.test(l))
    ? lines.map((l) => l.replace(marked, '')).join('\n')
    : lines.map((l, i) => `${mark(i)}${l}`).join('\n');
  write(area, from, to, text, text.length, text.length);
}

/** Each image file as Markdown at the cursor, on lines of its own. */
function insertImages(area: HTMLTextAreaElement, files: File[]) {
  const images = files.filter((f) => f.type.startsWith('image/'));
  if (!images.length) return;
  const { selectionStart: start, selectionEnd: end, value } = area;
  const lines = images.map((f) => `![${f.name.replace(/[[\]]/g, '')}](attachment:${encodeURIComponent(f.name)})`);
  const before = start && value[start - 1] !== '\n' ? '\n' : '';
  const text = `${before}${lines.join('\n')}\n`;
  write(area, start, end, text, text.length, text.length);
}

export function enhance(form: HTMLFormElement) {
  const area = form.querySelector<HTMLTextAreaElement>('textarea[name="body"]');
  const bar = form.querySelector<HTMLElement>('[role="toolbar"]');
  if (!area || !bar) return;
  const buttons = () => Array.from(bar.querySelectorAll<HTMLButtonElement>('button[data-md]'));
  // Now the keys work: say so, and make the toolbar one tab stop.
  for (const [i, b] of buttons().entries()) {
    b.tabIndex = i ? -1 : 0;
    const key = Object.keys(KEYS).find((k) => KEYS[k] === b.dataset.md);
    if (key) {
      b.setAttribute('aria-keyshortcuts', `Control+${key.toUpperCase()} Meta+${key.toUpperCase()}`);
      b.title = `${b.dataset.md} (Ctrl+${key.toUpperCase()})`;
    }
  }
  bar.addEventListener('click', (e) => {
    const button = (e.target as Element).closest<HTMLButtonElement>('button[data-md]');
    if (button) format(area, button.dataset.md as Tool);
  });
  // One tab stop; the arrows, Home and End move along the toolbar (WAI-ARIA toolbar pattern).
  bar.addEventListener('keydown', (e) => {
    const all = buttons();
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: all.length - 1 }[e.key];
    if (next === undefined || at < 0) return;
    e.preventDefault();
    const target = all[(next + all.length) % all.length]!;
    for (const b of all) b.tabIndex = b === target ? 0 : -1;
    target.focus();
  });
  area.addEventListener('keydown', (e) => {
    const tool = KEYS[e.key.toLowerCase()];
    if (!tool || !(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return;
    e.preventDefault();
    format(area, tool);
  });
  // Files pasted or dropped into the form (attachments-enhance.ts adds them to the file input first).
  form.addEventListener('tend:files', (e) => insertImages(area, (e as CustomEvent<File[]>).detail));
  form.dataset.rich = 'on';
}
