// "@" in an internal note offers the workspace's members (issue 27 item 8): loaded by the composer on the
// first "@" typed in a note, so the ticket page carries none of it (docs/decisions/006-javascript-budget.md).
// Plain DOM beside the message box: a list of the names whose words start with what follows the "@", the
// arrows move, Enter or Tab writes "@Full Name ", Escape closes. The box keeps the focus and points at the
// active name (aria-activedescendant); a status reads out how many match. The database resolves the
// names in the note as sent (supabase/schemas/87_mentions.sql), so typing a name by hand works as well.

export interface Mentionable {
  user_id: string;
  name: string;
}

/** "@sa" just before the caret (not inside a word or an address): what follows the "@", or null. */
export function mentionQuery(text: string, caret: number): { at: number; query: string } | null {
  const m = /(^|[^\p{L}\p{N}_.@])@([\p{L}\p{N}_.'-]{0,30})$/u.exec(text.slice(0, caret));
  return m ? { at: caret - m[2]!.length - 1, query: m[2]! } : null;
}

/** The members whose name has a word starting with `query` (all of them for ""), up to 8. */
export function mentionMatches(members: Mentionable[], query: string): Mentionable[] {
  const q = query.toLowerCase();
  return members
    .filter((m) =>
      m.name
        .toLowerCase()
        .split(/\s+/)
        .some((w) => w.startsWith(q)),
    )
    .slice(0, 8);
}

const attached = new WeakSet<HTMLTextAreaElement>();

/** Drives the picker on `area` from now on (once per box); `isNote` says whether the composer writes a note. */
export function attachMentions(area: HTMLTextAreaElement, members: Mentionable[], isNote: () => boolean) {
  if (attached.has(area)) return;
  attached.add(area);
  const list = document.createElement('div');
  list.id = `${area.id}-mentions`;
  list.role = 'listbox';
  list.ariaLabel = 'Members to mention';
  list.className = 'hd-picker__list hd-mentions';
  list.hidden = true;
  const status = document.createElement('p');
  status.role = 'status';
  status.className = 'visually-hidden';
  area.after(list, status);
  let matches: Mentionable[] = [];
  let active = 0;
  let at = -1;

  const close = () => {
    matches = [];
    list.hidden = true;
    area.removeAttribute('aria-activedescendant');
    area.removeAttribute('aria-controls');
    status.textContent = '';
  };
  const show = () => {
    list.replaceChildren(
      ...matches.map((member, i) => {
        const option = document.createElement('div');
        option.id = `${list.id}-${i}`;
        option.role = 'option';
        option.className = 'hd-picker__option';
        option.ariaSelected = String(i === active);
        option.textContent = member.name;
        option.onmousedown = (event) => event.preventDefault(); // the box keeps the focus
        option.onclick = () => pick(member);
        return option;
      }),
    );
    list.hidden = false;
    area.setAttribute('aria-controls', list.id);
    area.setAttribute('aria-activedescendant', `${list.id}-${active}`);
  };
  const pick = (member: Mentionable) => {
    area.setRangeText(`@${member.name} `, at, area.selectionStart, 'end');
    // As if typed: the counter and the kept draft hear of it.
    area.dispatchEvent(new Event('input', { bubbles: true }));
    close();
  };
  const update = () => {
    const found =
      isNote() && area.selectionStart === area.selectionEnd && mentionQuery(area.value, area.selectionStart);
    matches = found ? mentionMatches(members, found.query) : [];
    if (!found || !matches.length) return close();
    at = found.at;
    active = 0;
    show();
    status.textContent = `${matches.length} ${matches.length === 1 ? 'member' : 'members'} to mention`;
  };

  area.addEventListener('input', update);
  area.addEventListener('blur', close);
  area.addEventListener('keydown', (event) => {
    if (list.hidden) return;
    const step = event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0;
    if (step) {
      active = (active + step + matches.length) % matches.length;
      show();
    } else if (event.key === 'Enter' || event.key === 'Tab') pick(matches[active]!);
    else if (event.key === 'Escape') close();
    else return;
    event.preventDefault();
  });
  update();
}
