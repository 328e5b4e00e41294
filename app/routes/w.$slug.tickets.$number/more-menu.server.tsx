// The ticket page's rarely used actions and its "set aside" notice, as HTML rendered here, so the page's
// JavaScript carries none of it (docs/decisions/006-javascript-budget.md, as the custom fields' card,
// app/lib/helpdesk/ticket-fields-markup.server.tsx):
// "More" is a <details> of plain forms that post to /w/:slug/tickets/:number/move (Spam, Trash and back,
// docs/product.md#spam-and-trash) and a link to Forward; "Merge into…" (docs/product.md#merge) searches with a GET
// (?merge=) and posts its choice there too. The same with JavaScript or without.
import { renderToStaticMarkup } from 'react-dom/server';
import { Field } from '~/components/forms.tsx';
import { TRASH_DAYS } from '~/lib/constants.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';
import type { mergeCandidates } from './merge.server.ts';

interface SetAside {
  /** The ticket page's address, /w/:slug/tickets/:number. */
  base: string;
  spamAt: string | null;
  trashedAt: string | null;
}

/** Spam or Trash: what it is there for, and the one button that brings it back. */
function MoveButton({ base, spamAt, trashedAt }: SetAside) {
  const [intent, label] = trashedAt ? ['restore', 'Restore'] : spamAt ? ['not_spam', 'Not spam'] : [];
  if (!intent) return null;
  return (
    <form method="post" action={`${base}/move`}>
      <button type="submit" name="intent" value={intent} className="button button--secondary">
        {label}
      </button>
    </form>
  );
}

type Merge = Awaited<ReturnType<typeof mergeCandidates>>;

/** The "More" menu, beside the ticket's facts, with "Merge into…" in it (open while a merge is searched). */
export function moreMenuMarkup(ticket: SetAside & { number: number; merge: Merge }): string {
  const { base, spamAt, trashedAt, number, merge } = ticket;
  return renderToStaticMarkup(
    <details className="hd-more" open={!!merge}>
      <summary>More</summary>
      <div>
        <a href={`${base}/forward`}>Forward</a>
        <MergeInto base={base} number={number} merge={merge} />
        {trashedAt || spamAt ? (
          <MoveButton {...ticket} />
        ) : (
          <form method="post" action={`${base}/move`}>
            <button type="submit" name="intent" value="spam" className="button button--secondary">
              Mark as spam
            </button>
            <button type="submit" name="intent" value="trash" className="button button--secondary">
              Delete
            </button>
          </form>
        )}
        {trashedAt ? null : spamAt ? (
          <form method="post" action={`${base}/move`}>
            <button type="submit" name="intent" value="trash" className="button button--secondary">
              Delete
            </button>
          </form>
        ) : null}
      </div>
    </details>,
  );
}

/**
 * What stands instead of the composer, if anything: Trash (and when it goes for good), Spam, or closed.
 * Spam and Trash take no message from the team (ticket_in_spam, ticket_in_trash).
 */
export function ticketNoticeMarkup(ticket: SetAside & { closed: boolean; timeZone: string }): { notice?: string } {
  const { trashedAt, spamAt, closed, timeZone } = ticket;
  const text = trashedAt
    ? `This ticket is in Trash: it is deleted for good, with its files, on ${formatDateIn(
        new Date(Date.parse(trashedAt) + TRASH_DAYS * 86_400_000).toISOString(),
        timeZone,
      )}.`
    : spamAt
      ? 'This ticket is in Spam: nobody hears of it, and its sender’s later messages land here too.'
      : closed
        ? 'This request is closed. The requester can open a follow-up request.'
        : null;
  if (!text) return {};
  return {
    notice: renderToStaticMarkup(
      <div className="notice notice--warning hd-set-aside" data-testid="ticket-notice">
        <p>{text}</p>
        <MoveButton {...ticket} />
      </div>,
    ),
  };
}

/**
 * "Merge into…" (docs/product.md#merge): find the other ticket by number or subject (a GET, ?merge=), then
 * confirm it; the merge (posted to …/move) moves this one's thread there and closes it.
 */
function MergeInto({ base, number, merge }: { base: string; number: number; merge: Merge }) {
  return (
    <details className="stack" open={!!merge}>
      <summary>Merge into…</summary>
      <form method="get" className="stack">
        <Field
          label="Ticket number or subject"
          errors={merge?.error ? [merge.error] : undefined}
          inputProps={{ id: 'merge', name: 'merge', type: 'search', defaultValue: merge?.query }}
        />
        <button type="submit" className="button button--secondary">
          Find
        </button>
      </form>
      {merge?.tickets.length ? (
        <form method="post" action={`${base}/move`} className="stack">
          <fieldset className="stack">
            <legend>Merge #{number} into</legend>
            {merge.tickets.map((t, i) => (
              <label key={t.id} className="hd-check">
                <input type="radio" name="into" value={t.id} defaultChecked={i === 0} />
                <span dir="auto">
                  #{t.number} {t.subject}
                </span>
              </label>
            ))}
          </fieldset>
          <p className="small muted">Its messages, notes and files move there, and #{number} is closed for good.</p>
          <div className="hd-check">
            <button type="submit" name="intent" value="merge" className="button">
              Merge
            </button>
            <a href={base}>Cancel</a>
          </div>
        </form>
      ) : null}
    </details>
  );
}
