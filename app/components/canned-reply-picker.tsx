// The composer's canned replies (docs/product.md §2), already filled in for the ticket by the loader.
// Without JavaScript: a select and "Insert", which posts the composer (intent insert_canned_reply) and
// comes back with the reply after what was typed. With it: a combobox (ARIA 1.2 pattern, list
// autocomplete): type to filter by title, then text; arrows move, Enter inserts at the cursor, Escape
// closes. The text stays editable before sending either way.
import { useEffect, useId, useState } from 'react';
import { type FormReply, replyValue } from '~/components/forms.tsx';
import { ErrorList } from '~/components/form-controls.tsx';
import { SelectField } from '~/components/helpdesk-ui.tsx';
import { useHydrated } from '~/components/use-hydrated.ts';
import { appendToDraft, type PickerReply } from '~/lib/helpdesk/canned-replies.ts';

/** The composer's text after a reply was inserted without JavaScript (the action's `inserted`), if one was. */
export function insertedDraft(result: FormReply | undefined, inserted: unknown, replies: PickerReply[]) {
  const reply = replies.find((r) => r.id === inserted);
  return reply ? appendToDraft(replyValue(result, 'body') ?? '', reply.text) : undefined;
}

export function CannedReplyPicker({
  replies,
  textareaId,
  errors,
}: {
  replies: PickerReply[];
  textareaId: string;
  errors?: string[];
}) {
  const hydrated = useHydrated();
  if (!replies.length) return null;
  if (hydrated) return <Combobox replies={replies} textareaId={textareaId} />;
  return (
    <div>
      <div className="hd-actions">
        <SelectField id="canned_reply" name="canned_reply" label="Canned reply" defaultValue="">
          <option value="">Choose a reply…</option>
          {replies.map((r) => (
            <option key={r.id} value={r.id}>
              {r.title}
            </option>
          ))}
        </SelectField>
        <button type="submit" name="intent" value="insert_canned_reply" className="button button--secondary">
          Insert
        </button>
      </div>
      <ErrorList errors={errors} />
    </div>
  );
}

function Combobox({ replies, textareaId }: { replies: PickerReply[]; textareaId: string }) {
  const id = useId();
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const q = query.trim().toLowerCase();
  const has = (s: string) => s.toLowerCase().includes(q);
  const matches = [...replies.filter((r) => has(r.title)), ...replies.filter((r) => !has(r.title) && has(r.text))];
  const shown = open && matches.length > 0;
  const optionId = (i: number) => `${id}-option-${i}`;

  useEffect(() => {
    if (shown) document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  });

  const insert = (reply: PickerReply) => {
    const area = document.getElementById(textareaId) as HTMLTextAreaElement | null;
    if (area) {
      area.setRangeText(reply.text, area.selectionStart, area.selectionEnd, 'end');
      // As if typed: whatever listens to the message (a counter, the typing signal) hears of it.
      area.dispatchEvent(new Event('input', { bubbles: true }));
      area.focus();
    }
    setQuery('');
    setOpen(false);
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    const step = event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0;
    if (step) {
      event.preventDefault();
      if (!open) setActive(step > 0 ? 0 : matches.length - 1);
      else if (matches.length) setActive((active + step + matches.length) % matches.length);
      setOpen(true);
    } else if (event.key === 'Enter') {
      // Never the composer's implicit submit: Enter here picks.
      event.preventDefault();
      if (shown && matches[active]) insert(matches[active]);
    } else if (event.key === 'Escape' && (open || query)) {
      event.preventDefault();
      if (open) setOpen(false);
      else setQuery('');
    }
  };

  return (
    <div className="field hd-picker">
      <label htmlFor={`${id}-input`}>Canned reply</label>
      <input
        id={`${id}-input`}
        className="input"
        type="text"
        role="combobox"
        aria-expanded={shown}
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        aria-activedescendant={shown ? optionId(active) : undefined}
        placeholder="Type to search, ↓ to browse"
        autoComplete="off"
        spellCheck={false}
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
          setOpen(true);
        }}
        onClick={() => setOpen(!open)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      <div id={`${id}-list`} role="listbox" aria-label="Canned replies" className="hd-picker__list" hidden={!shown}>
        {matches.map((r, i) => (
          // The input keeps the focus (aria-activedescendant); a click picks without blurring it.
          // biome-ignore lint/a11y/useKeyWithClickEvents: the combobox's keys choose the options
          <div
            key={r.id}
            tabIndex={-1}
            id={optionId(i)}
            role="option"
            aria-selected={i === active}
            className="hd-picker__option"
            onMouseDown={(event) => event.preventDefault()}
            onMouseMove={() => setActive(i)}
            onClick={() => insert(r)}
          >
            {r.title}
            <span className="hd-picker__text" aria-hidden="true">
              {r.text}
            </span>
          </div>
        ))}
      </div>
      {open && !matches.length ? (
        <p className="muted small" role="status">
          No canned reply matches “{query.trim()}”.
        </p>
      ) : null}
    </div>
  );
}
