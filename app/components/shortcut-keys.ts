// What the keyboard shortcuts do (docs/product.md#the-agents-pages), and their help sheet: loaded on the first
// shortcut or on "Keyboard shortcuts" (shortcuts.tsx listens), so a page that never uses them never
// loads this. Plain DOM: a page marks what a key acts on — `data-shortcut="c"` is clicked,
// `data-shortcut="/"` focused, the rows of `data-shortcut-list` are what j/k select and Enter/o open
// (their first link); r and n pick the composer's kind radio and put the cursor in its text.

const KEYS = [
  ['j / k', 'Inbox: select the next / previous request'],
  ['Enter / o', 'Inbox: open the selected request'],
  ['/', 'Inbox: search'],
  ['c', 'Inbox: claim the next request'],
  ['r', 'Ticket: reply to the customer'],
  ['n', 'Ticket: write an internal note'],
  ['t', 'Ticket: add a tag'],
  ['g then i', 'Go to the inbox'],
  ['?', 'Show these shortcuts'],
];

/** The row j/k last selected, on the page (URL) it was selected on: another page starts again. */
let selected = -1;
let selectedOn = '';
let gAt = 0;

/** The help sheet: a modal <dialog> (focus moves in and back; Escape closes it), made once. */
export function openSheet() {
  let sheet = document.getElementById('shortcuts-sheet') as HTMLDialogElement | null;
  if (!sheet) {
    sheet = document.createElement('dialog');
    sheet.id = 'shortcuts-sheet';
    sheet.className = 'hd-shortcuts card';
    sheet.setAttribute('aria-labelledby', 'shortcuts-title');
    const rows = KEYS.map(
      ([keys, what]) => `<div class="hd-shortcuts__row"><dt><kbd>${keys}</kbd></dt><dd>${what}</dd></div>`,
    ).join('');
    sheet.innerHTML = `<h2 id="shortcuts-title">Keyboard shortcuts</h2><dl>${rows}</dl><form method="dialog"><button type="submit" class="button button--secondary">Close</button></form>`;
    document.body.append(sheet);
  }
  sheet.showModal();
}

/** A shortcut key (shortcuts.tsx has checked it is one, and that the agent isn't typing). */
export function press(key: string, goToInbox: () => void) {
  const afterG = Date.now() - gAt < 1500;
  gAt = key === 'g' ? Date.now() : 0;
  if (selectedOn !== location.href) [selected, selectedOn] = [-1, location.href];
  const rows = [...document.querySelectorAll('[data-shortcut-list] > *')];
  const focused = rows.findIndex((row) => row.contains(document.activeElement));
  const link = (i: number) => rows[i]?.querySelector<HTMLElement>('a[href]');
  if (key === 'i' && afterG) goToInbox();
  else if ((key === 'j' || key === 'k') && rows.length) {
    const from = focused >= 0 ? focused : selected;
    selected = from < 0 ? 0 : Math.min(rows.length - 1, Math.max(0, from + (key === 'j' ? 1 : -1)));
    link(selected)?.focus();
  } else if (key === 'o' || key === 'Enter') link(focused >= 0 ? focused : selected)?.click();
  else if (key === 'r' || key === 'n') {
    const radio = document.querySelector<HTMLInputElement>(
      `input[name="kind"][value="${key === 'n' ? 'note' : 'reply'}"]`,
    );
    if (!radio) return;
    radio.checked = true;
    radio.form?.querySelector('textarea')?.focus();
  } else if (key === '?') openSheet();
  else {
    const marked = document.querySelector<HTMLElement>(`[data-shortcut="${key}"]`);
    if (key === '/') marked?.focus();
    // The ticket page's tag field (by its id: the page carries no marker for it).
    else if (key === 't') document.getElementById('tag')?.focus();
    else marked?.click();
  }
}
