// The inbox's list, compact (docs/product.md#views-saved-views-mentions-and-search-the-inbox, issue 27 item 10): one
// line a request on a wide screen — subject with the first line of the latest message, tags, requester, assignee,
// status, due time and age — and a three-line card on a phone (the cells label themselves there). Its links are plain
// anchors; the route delegates their clicks.
import type { SerializeFrom } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { type MouseEvent, useRef } from 'react';
import { dueBadgeHtml } from '~/components/due-badge.tsx';
import { useHydrated } from '~/components/form-controls.tsx';
import { priorityBadgeHtml, statusBadgeHtml, tagLinkHtml } from '~/components/ticket-labels.tsx';
import { html, type Markup } from '~/lib/markup.ts';
import { VIEW_LABELS } from '~/lib/helpdesk/inbox-views.ts';
import type { loader } from './inbox.server.ts';
import { inboxHref } from '~/lib/helpdesk/inbox-href.ts';
import { NoMatches } from './search.tsx';

/** The rows' checkboxes (they belong to bulk.tsx's form). */
const boxes = (scope: Element) => [...scope.querySelectorAll<HTMLInputElement>('input[name="ticket"]')];

type Row = SerializeFrom<typeof loader>['tickets'][number];

/**
 * A row's cells after its checkbox, as markup (docs/decisions/115-rows-as-markup.md): inert, so React writes each
 * as one string instead of some twenty elements a row. Links are plain anchors (the route delegates their
 * clicks); text written by customers is isolated (dir="auto", <bdi>), so a right-to-left mark stays inside.
 */
export function rowCells(t: Row, slug: string, tagHref: (name: string) => string): [className: string, Markup][] {
  return [
    [
      'hd-cell-subject',
      html`<span class="hd-num">#${t.number}</span> <a href="/w/${slug}/tickets/${t.number}" dir="auto">${t.subject}</a>${t.preview ? html`<span class="hd-preview" dir="auto">${t.preview}</span>` : null}`,
    ],
    [
      'hd-cell-tags',
      html`${t.tags.length ? html`<ul class="hd-tags" aria-label="Tags">${t.tags.map((tag) => html`<li>${tagLinkHtml(tag.name, tag.colour, tagHref(tag.name))}</li>`)}</ul>` : null}`,
    ],
    [
      'hd-cell-requester',
      html`<span class="hd-cell-label">From </span><a href="/w/${slug}/customers/${t.requester_id}"><bdi>${t.requester}</bdi></a>`,
    ],
    [
      'hd-cell-assignee',
      html`<span class="hd-cell-label">Assignee </span>${t.assignee ? html`<bdi>${t.assignee}</bdi>` : html`<span class="muted">nobody</span>`}`,
    ],
    [
      'hd-cell-status',
      html`${statusBadgeHtml(t.status)}${t.rated ? html`<span class="small cs-rated cs-rated--${t.rated.rating}"> rated ${t.rated.label}</span>` : null}${t.priority === 'normal' ? null : html` ${priorityBadgeHtml(t.priority)}`}`,
    ],
    ['hd-cell-due', html`${t.due ? dueBadgeHtml(t.due) : null}`],
    [
      'small hd-cell-date',
      html`<time dateTime="${t.last_message_at}" title="${t.when}">${t.age}</time>${t.snoozed ? html`<span class="muted"> · snoozed until ${t.snoozed}</span>` : null}`,
    ],
  ];
}

export function InboxTable({ onSelected }: { onSelected: (n: number) => void }) {
  const { workspace, listed, filters, keep, total, tickets, searchError } = useLoaderData<typeof loader>();
  const hydrated = useHydrated();
  const last = useRef(-1);
  // Shift-click checks (or unchecks) every row from the one clicked before; the bar counts them.
  const select = (event: MouseEvent<HTMLElement>) => {
    const box = event.target as HTMLInputElement;
    if (box.name !== 'ticket' && box.name !== 'page_all') return;
    const all = boxes(event.currentTarget);
    const i = all.indexOf(box);
    if (box.name === 'page_all') for (const b of all) b.checked = box.checked;
    else if (event.shiftKey) {
      // From the row clicked before; a row checked before the page could listen counts as that.
      const from = last.current >= 0 ? last.current : all.findIndex((b) => b.checked && b !== box);
      if (from >= 0) for (const b of all.slice(Math.min(i, from), Math.max(i, from) + 1)) b.checked = box.checked;
    }
    last.current = i;
    onSelected(all.filter((b) => b.checked).length);
  };
  // A tag's chip links to the view narrowed to it too: one address per tag name, however many rows have it.
  const tagHrefs = new Map<string, string>();
  const tagHref = (name: string) => {
    let href = tagHrefs.get(name);
    if (href === undefined) {
      href = inboxHref(workspace.slug, { ...keep, tag: [...new Set([...filters.tag, name])] });
      tagHrefs.set(name, href);
    }
    return href;
  };
  const order =
    listed === 'breaching'
      ? 'soonest due first'
      : listed === 'mentions' && !filters.q
        ? 'newest mention first'
        : filters.sort === 'oldest'
          ? 'oldest activity first'
          : 'newest activity first';
  return (
    <div className="card hd-table-wrap" hidden={!!searchError}>
      {tickets.length === 0 ? (
        filters.q ? (
          <NoMatches />
        ) : (
          <p className="muted" data-testid="inbox-empty">
            No requests here.
          </p>
        )
      ) : (
        // biome-ignore lint/a11y/useKeyWithClickEvents: the checkboxes inside take the keyboard themselves; this only widens a shift-click
        <table className="hd-table" onClick={select}>
          <caption className="visually-hidden">
            {VIEW_LABELS[listed]} requests, {order}
            {total === null ? '' : ` (${total})`}
          </caption>
          <thead>
            <tr>
              <th scope="col" className="hd-cell-select">
                {hydrated ? (
                  <input type="checkbox" name="page_all" aria-label="Select every request on this page" />
                ) : (
                  <span className="visually-hidden">Select</span>
                )}
              </th>
              <th scope="col">Subject</th>
              <th scope="col">Tags</th>
              <th scope="col">Requester</th>
              <th scope="col">Assignee</th>
              <th scope="col">Status</th>
              <th scope="col">Due</th>
              <th scope="col">Age</th>
            </tr>
          </thead>
          <tbody data-shortcut-list>
            {tickets.map((t) => (
              <tr key={t.id} data-testid="inbox-row">
                <td className="hd-cell-select">
                  <input type="checkbox" name="ticket" value={t.id} form="bulk" aria-label={`Select #${t.number}`} />
                </td>
                {rowCells(t, workspace.slug, tagHref).map(([className, markup]) => (
                  // biome-ignore lint/security/noDangerouslySetInnerHtml: every value in it is escaped (app/lib/markup.ts)
                  <td key={className} className={className} dangerouslySetInnerHTML={markup} />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
