// The inbox's list: one line a request on a wide screen, a card a request on a phone (the cells
// label themselves there). Its links are plain anchors; the route delegates their clicks.
import { useLoaderData } from '@remix-run/react';
import { PriorityBadge, StatusBadge, TagChip } from '~/components/ticket-labels.tsx';
import { formatDate } from '~/lib/helpdesk/format-date.ts';
import { VIEW_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import type { loader } from './inbox.server.ts';
import { inboxHref } from './inbox-href.ts';

export function InboxTable() {
  const { workspace, view, filters, total, tickets, searchError } = useLoaderData<typeof loader>();
  return (
    <div className="card hd-table-wrap" hidden={!!searchError}>
      {tickets.length === 0 ? (
        <p className="muted" data-testid="inbox-empty">
          No requests here.
        </p>
      ) : (
        <table className="hd-table">
          <caption className="visually-hidden">
            {VIEW_LABELS[view]} requests, newest activity first
            {total === null ? '' : ` (${total})`}
          </caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Subject</th>
              <th scope="col">Requester</th>
              <th scope="col">Status</th>
              <th scope="col">Priority</th>
              <th scope="col">Assignee</th>
              <th scope="col">Last activity</th>
            </tr>
          </thead>
          <tbody data-shortcut-list>
            {tickets.map((t) => (
              <tr key={t.id} data-testid="inbox-row">
                <td className="muted hd-cell-number">
                  <span className="hd-cell-label">#</span>
                  {t.number}
                </td>
                <td className="hd-cell-subject">
                  <a href={`/w/${workspace.slug}/tickets/${t.number}`}>{t.subject}</a>
                  {t.tags.length ? (
                    <ul className="hd-tags" aria-label="Tags">
                      {t.tags.map((tag) => (
                        <li key={tag.id}>
                          {/* The view narrowed to this tag too. */}
                          <TagChip
                            name={tag.name}
                            colour={tag.colour}
                            href={inboxHref(workspace.slug, {
                              view,
                              ...filters,
                              tag: [...new Set([...filters.tag, tag.name])],
                            })}
                          />
                        </li>
                      ))}
                    </ul>
                  ) : null}
                </td>
                <td className="hd-cell-requester">
                  <span className="hd-cell-label">From </span>
                  {t.requester}
                </td>
                <td className="hd-cell-status">
                  <StatusBadge status={t.status} />
                </td>
                <td className="hd-cell-priority">
                  <PriorityBadge priority={t.priority} />
                </td>
                <td className="hd-cell-assignee">
                  <span className="hd-cell-label">Assignee </span>
                  {t.assignee ?? <span className="muted">nobody</span>}
                </td>
                <td className="small hd-cell-date">
                  {formatDate(t.last_message_at)}
                  {t.snoozed_until ? (
                    <span className="muted"> · snoozed until {formatDate(t.snoozed_until)}</span>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
