// The ticket page's rarely used actions and its "set aside" notice, as HTML rendered here, so the page's
// JavaScript carries none of it (docs/decisions/006-javascript-budget.md, as ticket-fields.tsx does):
// "More" is a <details> of plain forms that post to /w/:slug/tickets/:number/move (Spam, Trash and back,
// docs/product.md §2.11) and a link to Forward. The same with JavaScript or without.
import { renderToStaticMarkup } from 'react-dom/server';
import { TRASH_DAYS } from '~/lib/constants.ts';
import { formatDateIn } from '~/lib/helpdesk/format-date.ts';

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

/** The "More" menu, beside the ticket's facts. */
export function moreMenuMarkup(ticket: SetAside): string {
  const { base, spamAt, trashedAt } = ticket;
  return renderToStaticMarkup(
    <details className="hd-more">
      <summary className="button button--ghost">More</summary>
      <div className="hd-more__menu stack">
        <a href={`${base}/forward`}>Forward</a>
        {trashedAt || spamAt ? (
          <MoveButton {...ticket} />
        ) : (
          <form method="post" action={`${base}/move`} className="stack">
            <button type="submit" name="intent" value="spam" className="button button--secondary">
              Mark as spam
            </button>
            <p className="small muted">To Spam, with every later message of its sender; nobody is told.</p>
            <button type="submit" name="intent" value="trash" className="button button--secondary">
              Delete
            </button>
            <p className="small muted">To Trash for {TRASH_DAYS} days, then gone with its files.</p>
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
 * What stands instead of the composer, or null: Trash (and when it goes for good), Spam, or closed.
 * Spam and Trash take no message from the team (ticket_in_spam, ticket_in_trash).
 */
export function ticketNoticeMarkup(ticket: SetAside & { closed: boolean; timeZone: string }): string | null {
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
  if (!text) return null;
  return renderToStaticMarkup(
    <div className="notice notice--warning hd-set-aside" data-testid="ticket-notice">
      <p>{text}</p>
      <MoveButton {...ticket} />
    </div>,
  );
}
