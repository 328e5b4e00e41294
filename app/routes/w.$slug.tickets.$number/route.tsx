// An agent's ticket page: the whole thread (internal notes set apart), the composer (reply or note,
// "send and set status", traffic cop via last_seen_message_id), and the sidebar: status, priority,
// assignee, requester, history. Not a member or not visible: 404. The loader and the action are in
// ticket.server.ts; the page's parts beside it (thread.tsx, composer.tsx, sidebar.tsx).
import type { MetaFunction } from '@remix-run/node';
import type { ClientActionFunctionArgs, ClientLoaderFunctionArgs, ShouldRevalidateFunction } from '@remix-run/react';
import { Link, useActionData, useLoaderData } from '@remix-run/react';
import { DueBadge } from '~/components/due-badge.tsx';
import { loadOrKeep } from '~/components/live/kept-page.ts';
import { isOffline, replyValue, sendOrKeep } from '~/components/forms.tsx';
import { PriorityBadge, StatusBadge } from '~/components/ticket-labels.tsx';
import { Composer } from './composer.tsx';
import { Sidebar } from './sidebar.tsx';
import { TicketThread } from './thread.tsx';
import type { action, loader } from './ticket.server.ts';

export { action, loader } from './ticket.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `#${data.ticket.number} ${data.ticket.subject} · ${data.workspace.name} · Tend` : 'Ticket · Tend' },
  {
    name: 'description',
    content: 'A ticket: its conversation, notes and fields.',
  },
];

/** With the network down, the page and the draft stay as they are (forms.tsx). */
export const clientAction = ({ serverAction }: ClientActionFunctionArgs) => sendOrKeep(serverAction<typeof action>);

/** A live update the network fails to load keeps the page and the draft (kept-page.ts). */
export const clientLoader = ({ request, serverLoader }: ClientLoaderFunctionArgs) =>
  loadOrKeep(request, serverLoader<typeof loader>);

/**
 * A refusal because the ticket changed meanwhile (409: ticket_changed, ticket_closed,
 * invalid_transition) shows it as it is now, above the kept text. Single fetch skips reloading
 * after an action's 4xx unless asked; without JavaScript the page is rendered afresh anyway.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ actionStatus, actionResult, defaultShouldRevalidate }) =>
  !isOffline(actionResult) && (actionStatus === 409 || defaultShouldRevalidate);

export default function TicketPage() {
  const { workspace, ticket, requester, assignee, due, rating, more, notice } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const result = actionData && 'result' in actionData ? actionData.result : undefined;
  // A refused draft is kept, with how it was to be sent; any other answer is the sidebar's.
  const sent = ['send', 'insert_canned_reply'].includes(replyValue(result, 'intent') ?? '') ? result : undefined;
  return (
    <section className="hd-ticket" aria-labelledby="ticket-title">
      <div className="hd-ticket__main stack-lg">
        <div>
          <p className="eyebrow">
            <Link to={`/w/${workspace.slug}`}>{workspace.name} inbox</Link> · #{ticket.number}
          </p>
          <h1 id="ticket-title" dir="auto">
            {ticket.subject}
          </h1>
          <p className="hd-ticket__facts">
            <StatusBadge status={ticket.status} /> <PriorityBadge priority={ticket.priority} />{' '}
            {due ? <DueBadge due={due} /> : null}{' '}
            <span className="muted small">
              from <bdi>{requester}</bdi> ·{' '}
              {assignee ? (
                <>
                  assigned to <bdi>{assignee}</bdi>
                </>
              ) : (
                'unassigned'
              )}
            </span>
          </p>
          {rating ? (
            // The loader's markup (rating-markup.server.tsx): the page carries no code for it.
            // biome-ignore lint/security/noDangerouslySetInnerHtml: React rendered it on the server (texts escaped).
            <div dangerouslySetInnerHTML={{ __html: rating }} />
          ) : null}
          {/* biome-ignore lint/security/noDangerouslySetInnerHtml: markup React rendered on the server (more-menu.server.tsx). */}
          <div dangerouslySetInnerHTML={{ __html: more }} />
        </div>
        <TicketThread />
        {notice ? (
          // biome-ignore lint/security/noDangerouslySetInnerHtml: markup React rendered on the server (more-menu.server.tsx).
          <div dangerouslySetInnerHTML={{ __html: notice }} />
        ) : (
          <Composer result={result} sent={sent} />
        )}
      </div>
      <Sidebar result={sent ? undefined : result} />
    </section>
  );
}
