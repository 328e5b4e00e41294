// The ticket's conversation, live: who else is here and writing (LiveTicket), the messages with
// internal notes set apart, and those that arrived while a refused draft was written marked new.
import { useActionData, useLoaderData } from '@remix-run/react';
import { Thread } from '~/components/helpdesk-thread.tsx';
import { LiveTicket } from '~/components/live/live-ticket.tsx';
import type { action, loader } from './ticket.server.ts';

export function TicketThread() {
  const { workspace, ticket, me, members, messages, earlier } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // ticket_changed: the newest message the writer had seen (those after it are new to them).
  const changedAfter =
    actionData && 'changedAfter' in actionData ? (actionData.changedAfter as string | undefined) : undefined;
  return (
    <>
      <LiveTicket ticketId={ticket.id} me={me} members={members} />
      <Thread
        messages={messages}
        earlier={earlier}
        highlightAfter={changedAfter ?? null}
        filesPath={`/w/${workspace.slug}/tickets/${ticket.number}/files/`}
        articleFrom={`/w/${workspace.slug}/help/new?from=`}
      />
    </>
  );
}
