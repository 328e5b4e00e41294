// The composer's canned-reply combobox (ARIA 1.2 combobox with list autocomplete), loaded on the
// picker's first focus (canned-reply-picker.tsx renders the field; this adds its list and a status).
// Plain DOM, so loading it loads nothing else: type to filter by title, then by text; the arrows move through the
// list, Enter inserts the filled-in text at the message's cursor, a click too; Escape closes, again
// clears. With `articlesSrc` it also searches the help center's published articles as the agent types
// (…/help/lookup): an article inserts its title and address.
import type { PickerReply } from '~/lib/helpdesk/canned-replies.ts';

export function drive(input: HTMLInputElement, replies: PickerReply[], textareaId: string, articlesSrc?: string) {
  const list = document.createElement('div');
  list.id = `${input.id}-list`;
  list.role = 'listbox';
  list.ariaLabel = 'Canned replies';
  list.className = 'hd-picker__list';
  const status = document.createElement('p');
  status.role = 'status';
  // Both pop up under the field (app.css), so the field's box ends with it.
  status.className = 'hd-picker__status muted small';
  input.after(list, status);
  input.setAttribute('aria-controls', list.id);
  let open = document.activeElement === input && input.value !== '';
  let active = 0;
  let matches: PickerReply[] = [];
  let articles: PickerReply[] = [];
  let lookup: ReturnType<typeof setTimeout> | undefined;
  const isArticle = (r: PickerReply) => articles.includes(r);

  const optionId = (i: number) => `${list.id}-${i}`;
  // The state shown: open or not, the active option (no rebuild, so a click lands where it started).
  const show = () => {
    const shown = open && matches.length > 0;
    input.setAttribute('aria-expanded', String(shown));
    list.hidden = !shown;
    for (const [i, option] of [...list.children].entries()) option.setAttribute('aria-selected', String(i === active));
    if (shown) {
      input.setAttribute('aria-activedescendant', optionId(active));
      list.children[active]?.scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
    status.textContent = open && !matches.length ? `No canned reply matches “${input.value.trim()}”.` : '';
  };
  // The options for what is typed: title matches first, then text matches.
  const filter = () => {
    const q = input.value.trim().toLowerCase();
    const has = (s: string) => s.toLowerCase().includes(q);
    matches = [
      ...replies.filter((r) => has(r.title)),
      ...replies.filter((r) => !has(r.title) && has(r.text)),
      ...(q ? articles : []),
    ];
    active = 0;
    list.replaceChildren(
      ...matches.map((reply, i) => {
        const option = document.createElement('div');
        option.id = optionId(i);
        option.role = 'option';
        option.tabIndex = -1;
        option.className = 'hd-picker__option';
        const text = document.createElement('span');
        text.className = 'hd-picker__text';
        text.ariaHidden = 'true';
        text.textContent = reply.text;
        option.append(isArticle(reply) ? `Article: ${reply.title}` : reply.title, text);
        // The field keeps the focus (aria-activedescendant).
        option.onmousedown = (event) => event.preventDefault();
        option.onmousemove = () => {
          if (active === i) return;
          active = i;
          show();
        };
        option.onclick = () => insert(reply);
        return option;
      }),
    );
  };
  const insert = (reply: PickerReply) => {
    const area = document.getElementById(textareaId) as HTMLTextAreaElement | null;
    if (area) {
      area.setRangeText(reply.text, area.selectionStart, area.selectionEnd, 'end');
      // As if typed: whatever listens to the message (a counter, the typing signal) hears of it.
      area.dispatchEvent(new Event('input', { bubbles: true }));
      area.focus();
    }
    input.value = '';
    open = false;
    filter();
    show();
  };

  const onInput = () => {
    open = true;
    filter();
    show();
    if (!articlesSrc) return;
    clearTimeout(lookup);
    const q = input.value.trim();
    lookup = setTimeout(async () => {
      if (q.length < 2) articles = [];
      else {
        try {
          const res = await fetch(`${articlesSrc}?q=${encodeURIComponent(q)}`, {
            headers: { Accept: 'application/json' },
          });
          if (!res.ok || input.value.trim() !== q) return;
          articles = ((await res.json()) as { articles: PickerReply[] }).articles;
        } catch {
          return;
        }
      }
      filter();
      show();
    }, 250);
  };
  input.addEventListener('input', onInput);
  input.addEventListener('click', () => {
    open = !open;
    show();
  });
  input.addEventListener('blur', () => {
    open = false;
    show();
  });
  input.addEventListener('keydown', (event) => {
    const step = event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0;
    const n = matches.length;
    if (step) {
      event.preventDefault();
      if (!open) active = step > 0 ? 0 : n - 1;
      else if (n) active = (active + step + n) % n;
      open = true;
    } else if (event.key === 'Enter') {
      if (open && matches[active]) insert(matches[active]);
      return;
    } else if (event.key === 'Escape' && (open || input.value)) {
      event.preventDefault();
      if (open) open = false;
      else {
        input.value = '';
        filter();
      }
    } else return;
    show();
  });
  // What was typed while this module loaded fired no input event we heard: take it up now.
  if (open) onInput();
  else {
    filter();
    show();
  }
  input.dataset.state = 'ready';
}
