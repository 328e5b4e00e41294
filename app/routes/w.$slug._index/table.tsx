// The inbox's list: one line a request on a wide screen, a card a request on a phone (the cells
// label themselves there). Its links are plain anchors; the route delegates their clicks.
import { useLoaderData } from '@remix-run/react';
import { DueBadge } from '~/components/due-badge.tsx';
import { PriorityBadge, StatusBadge } from '~/components/ticket-labels.tsx';
import { formatDate } from '~/lib/helpdesk/format-date.ts';
import { VIEW_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import type { loader } from './inbox.server.ts';

export function InboxTable() {
  const { workspace, view, total, tickets, searchError } = useLoaderData<typeof loader>();
  return (
    <div className="card hd-table-wrap" hidden={!!searchError}>
      {tickets.length === 0 ? (
        <p className="muted" data-testid="inbox-empty">
          No requests here.
        </p>
      ) : (
        <table className="hd-table">
          <caption className="visually-hidden">
            {VIEW_LABELS[view]} requests, {view === 'breaching' ? 'soonest due first' : 'newest activity first'}
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
              <th scope="col">Due</th>
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
                  {/* Written by customers: isolated, so a right-to-left mark or override stays inside (dir). */}
                  <a href={`/w/${workspace.slug}/tickets/${t.number}`} dir="auto">
                    {t.subject}
                  </a>
                </td>
                <td className="hd-cell-requester">
                  <span className="hd-cell-label">From </span>
                  <a href={`/w/${workspace.slug}/customers/${t.requester_id}`}>
                    <bdi>{t.requester}</bdi>
                  </a>
                </td>
                <td className="hd-cell-status">
                  <StatusBadge status={t.status} />
                </td>
                <td className="hd-cell-priority">
                  <PriorityBadge priority={t.priority} />
                </td>
                <td className="hd-cell-assignee">
                  <span className="hd-cell-label">Assignee </span>
                  {t.assignee ? <bdi>{t.assignee}</bdi> : <span className="muted">nobody</span>}
                </td>
                <td className="hd-cell-due">{t.due ? <DueBadge due={t.due} /> : null}</td>
                <td className="small hd-cell-date">{formatDate(t.last_message_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
