// The composer's canned replies (docs/product.md#canned-replies-in-the-composer). Without JavaScript: a select and
// "Insert", which posts the composer (intent insert_canned_reply) and comes back with the reply, filled in by the
// server, after what was typed. With it: a combobox (canned-reply-combobox.ts), loaded with the
// replies' filled-in text (`src`) when the field is first used, so the ticket page's own JavaScript
// and data stay small (docs/decisions/006-javascript-budget.md). The text stays editable either way.
// With JavaScript it also finds help center articles and inserts their link (the replies' JSON names
// where to look them up: …/help/lookup). Both are in the page from the server, and CSS shows the one
// that works (`@media (scripting)`): nothing appears or moves when the page's JavaScript starts.
import { type FocusEvent, useId } from 'react';
import { ErrorList } from '~/components/form-controls.tsx';
import { SelectField } from '~/components/forms.tsx';

export function CannedReplyPicker({
  replies,
  src,
  textareaId,
  errors,
}: {
  /** Their titles (each names one reply). */
  replies: string[];
  src: string;
  textareaId: string;
  errors?: string[];
}) {
  // Keyed by ticket: the text is filled in for one. With JavaScript there are always articles to find;
  // without, the select and "Insert".
  return (
    <>
      <LazyCombobox key={src} src={src} textareaId={textareaId} />
      {replies.length ? (
        <div className="hd-without-js">
          <div className="hd-actions">
            <SelectField id="canned_reply" name="canned_reply" label="Canned reply" defaultValue="">
              <option value="">Choose a reply…</option>
              {replies.map((title) => (
                <option key={title}>{title}</option>
              ))}
            </SelectField>
            <button type="submit" name="intent" value="insert_canned_reply" className="button button--secondary">
              Insert
            </button>
          </div>
          <ErrorList errors={errors} />
        </div>
      ) : null}
    </>
  );
}

/**
 * The combobox's field as it is before its first focus, which loads the replies' filled-in text
 * (`src`) and the code that drives the field (canned-reply-combobox.ts: plain DOM, it adds the list and
 * a status, and keeps the ARIA state, which React leaves alone).
 */
function LazyCombobox({ src, textareaId }: { src: string; textareaId: string }) {
  const id = useId();
  const wake = ({ currentTarget: input }: FocusEvent<HTMLInputElement>) => {
    if (input.dataset.state) return;
    input.dataset.state = 'loading';
    Promise.all([
      import('./canned-reply-combobox.ts'),
      fetch(src, { headers: { Accept: 'application/json' } }).then((res) => res.json()),
    ]).then(
      ([{ drive }, { replies, articles }]) => drive(input, replies, textareaId, articles),
      () => delete input.dataset.state,
    );
  };
  return (
    <div className="field hd-picker hd-with-js">
      <label htmlFor={`${id}-input`}>Canned reply or article</label>
      <input
        id={`${id}-input`}
        className="input"
        type="text"
        role="combobox"
        aria-expanded={false}
        aria-autocomplete="list"
        placeholder="Type to search, ↓ to browse"
        autoComplete="off"
        onFocus={wake}
        // Never the composer's implicit submit: Enter here picks a reply.
        onKeyDown={(event) => event.key === 'Enter' && event.preventDefault()}
      />
    </div>
  );
}
