// The ticket page's sidebar: the requester, the fields (status, priority, assignee) and the history.
// With JavaScript each field is saved as it changes (a fetcher of its own, so a change never waits for
// or cancels another), shown at once (optimistic) and then "Saved", or refused at the field
// (ticket_field_changed, 409: the page then shows the ticket as it is now). Without JavaScript the
// same form has one "Save" for the three and "Assign to me" (docs/product.md#the-agents-pages).
import { Form, Link, useFetcher, useLoaderData } from '@remix-run/react';
import type { ChangeEvent, ReactNode } from 'react';
import {
  ErrorList,
  Field,
  type FormReply,
  isOffline,
  replyErrors,
  replyFormErrors,
  replyValue,
} from '~/components/forms.tsx';
import { MemberOptions, PriorityOptions, StatusOptions, TagChip } from '~/components/ticket-labels.tsx';
import { StatusBadge } from '~/components/ticket-labels.tsx';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import { formatDate } from '~/lib/helpdesk/format-date.ts';
import { NO_ASSIGNEE, type TicketPriority, type TicketStatus } from '~/lib/helpdesk/ticket-terms.ts';
import type { loader } from './ticket.server.ts';

export interface TicketFieldValues {
  status: TicketStatus;
  priority: TicketPriority;
  assignee_id: string | null;
}

type SidebarField = 'status' | 'priority' | 'assignee';
const fetcherKey = (ticketId: string, field: SidebarField) => `ticket-${ticketId}-${field}`;

/** One select, saved on change with JavaScript; `value` is what the server has now. */
function SavedSelect({
  ticketId,
  field,
  label,
  value,
  result,
  children,
  after,
}: {
  ticketId: string;
  field: SidebarField;
  label: string;
  value: string;
  result?: FormReply;
  children: ReactNode;
  after?: (save: (value: string) => void) => ReactNode;
}) {
  const fetcher = useFetcher<{ saved?: SidebarField; result?: FormReply }>({ key: fetcherKey(ticketId, field) });
  // Shown at once: the value on its way, until the page has it.
  const pending = fetcher.formData?.get(field);
  const shown = typeof pending === 'string' ? pending : value;
  // Not sent (no connection): the select shows the stored value again, and says why.
  const shownErrors = isOffline(fetcher.data)
    ? [errorMessage('offline')]
    : replyErrors(fetcher.data?.result ?? result, field);
  const save = (next: string) =>
    fetcher.submit({ intent: field, [field]: next, [`from_${field}`]: value || NO_ASSIGNEE }, { method: 'post' });
  const progress = fetcher.state !== 'idle' ? 'Saving…' : fetcher.data?.saved === field ? 'Saved' : '';
  const errorId = shownErrors ? `${field}-error` : undefined;
  return (
    <div className="field hd-field">
      <div className="hd-field__label">
        <label htmlFor={field}>{label}</label>
        <span className="hd-field__progress small muted" role="status" data-testid={`${field}-progress`}>
          {progress}
        </span>
      </div>
      <input type="hidden" name={`from_${field}`} value={value || NO_ASSIGNEE} />
      <select
        id={field}
        name={field}
        className="input"
        value={shown}
        aria-invalid={errorId ? true : undefined}
        aria-describedby={errorId}
        onChange={(event: ChangeEvent<HTMLSelectElement>) => save(event.target.value)}
      >
        {children}
      </select>
      <ErrorList id={errorId} errors={shownErrors} />
      {after?.(save)}
    </div>
  );
}

function TicketFields({
  ticketId,
  ticket,
  me,
  members,
  result,
}: {
  ticketId: string;
  ticket: TicketFieldValues;
  me: string;
  members: { user_id: string; name: string }[];
  /** The answer to this form without JavaScript ("Save", "Assign to me"). */
  result?: FormReply;
}) {
  return (
    <Form method="post" className="card stack hd-fields">
      <ErrorList errors={replyFormErrors(result)} />
      <SavedSelect ticketId={ticketId} field="status" label="Status" value={ticket.status} result={result}>
        <StatusOptions />
      </SavedSelect>
      <SavedSelect ticketId={ticketId} field="priority" label="Priority" value={ticket.priority} result={result}>
        <PriorityOptions />
      </SavedSelect>
      <SavedSelect
        ticketId={ticketId}
        field="assignee"
        label="Assignee"
        value={ticket.assignee_id ?? ''}
        result={result}
        after={(save) =>
          ticket.assignee_id !== me ? (
            <button
              type="submit"
              name="intent"
              value="assign_me"
              className="button button--ghost hd-assign-me"
              onClick={(event) => {
                event.preventDefault();
                save(me);
              }}
            >
              Assign to me
            </button>
          ) : null
        }
      >
        <option value="">Nobody</option>
        <MemberOptions members={members} />
      </SavedSelect>
      {/* With JavaScript every change is saved as it is made. */}
      <noscript>
        <button type="submit" name="intent" value="save" className="button button--secondary">
          Save
        </button>
      </noscript>
    </Form>
  );
}

/**
 * The ticket's tags (docs/product.md#tags): each with a remove button; a name to add (created if the
 * agent may). With JavaScript the field suggests the workspace's tags, which tag-names.ts fetches on
 * its first focus (loaded then, like the canned-reply picker).
 */
function TicketTags({ result }: { result?: FormReply }) {
  const { workspace, ticket } = useLoaderData<typeof loader>();
  return (
    <div className="card stack">
      <h2 className="hd-side-title">Tags</h2>
      <Form method="post" className="hd-tags">
        <input type="hidden" name="intent" value="remove_tag" />
        {ticket.tags.map((t) => (
          <TagChip key={t.id} name={t.name} colour={t.colour}>
            <button
              type="submit"
              name="tag_id"
              value={t.id}
              className="hd-tag-remove"
              aria-label={`Remove tag ${t.name}`}
            >
              ×
            </button>
          </TagChip>
        ))}
      </Form>
      <Form method="post">
        <Field
          label="Add a tag"
          errors={replyErrors(result, 'tag')}
          inputProps={{
            id: 'tag',
            name: 'tag',
            list: 'tag-names',
            defaultValue: replyValue(result, 'tag'),
            onFocus: () => void import('./tag-names.ts').then((m) => m.suggestTags(workspace.slug)),
          }}
        />
        <datalist id="tag-names" />
        <button type="submit" name="intent" value="add_tag" className="button button--secondary">
          Add
        </button>
      </Form>
    </div>
  );
}

/**
 * Snooze (docs/product.md#snooze): until later today, tomorrow or Monday 9:00, or a date and time in the
 * workspace's time zone; snoozed, when it wakes and "Wake now". A solved or closed ticket is refused
 * (ticket_not_snoozable, at the field).
 */
function TicketSnooze({ result }: { result?: FormReply }) {
  const { ticket, timeZone } = useLoaderData<typeof loader>();
  return (
    <Form method="post" className="card stack">
      {ticket.snoozed_until ? (
        <p>Snoozed until {formatDate(ticket.snoozed_until)}</p>
      ) : (
        <>
          <div className="field">
            <label htmlFor="preset">Snooze until</label>
            <select id="preset" name="preset" className="input" defaultValue={replyValue(result, 'preset')}>
              <option value="later">In 3 hours</option>
              <option value="tomorrow">Tomorrow 9:00</option>
              <option value="monday">Monday 9:00</option>
              <option value="custom">At the time below</option>
            </select>
          </div>
          <Field
            label={`Date and time (${timeZone})`}
            errors={replyErrors(result, 'at')}
            inputProps={{ id: 'at', name: 'at', type: 'datetime-local', defaultValue: replyValue(result, 'at') }}
          />
        </>
      )}
      <button
        type="submit"
        name="intent"
        value={ticket.snoozed_until ? 'wake' : 'snooze'}
        className="button button--secondary"
      >
        {ticket.snoozed_until ? 'Wake now' : 'Snooze'}
      </button>
    </Form>
  );
}

/** The requester (name, email, their other recent requests here), the fields, the history. */
export function Sidebar({ result }: { result?: FormReply }) {
  const {
    workspace,
    ticket,
    me,
    members,
    requester,
    requesterCard: card,
    events,
    fieldsForm,
    followersForm,
  } = useLoaderData<typeof loader>();
  return (
    <aside className="hd-ticket__side stack" aria-label="Ticket details">
      <div className="card stack">
        <h2 className="hd-side-title">Requester</h2>
        <p data-testid="requester">
          <Link to={`/w/${workspace.slug}/customers/${card.user_id}`}>{requester}</Link>
        </p>
        {card.email ? (
          <p className="small">
            <a href={`mailto:${card.email}`} data-testid="requester-email">
              {card.email}
            </a>
          </p>
        ) : null}
        <p className="small muted">
          {card.requests === 1 ? 'This is their only request.' : `${card.requests} requests in ${workspace.name}`}
        </p>
        {card.recent.length ? (
          <ul className="hd-side-list small" aria-label="Their other recent requests">
            {card.recent.map((r) => (
              <li key={r.number}>
                <Link to={`/w/${workspace.slug}/tickets/${r.number}`}>
                  #{r.number} {r.subject}
                </Link>{' '}
                <StatusBadge status={r.status} />
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <TicketFields ticketId={ticket.id} ticket={ticket} me={me} members={members} result={result} />
      <TicketTags result={result} />
      <TicketSnooze result={result} />
      {/* The followers (docs/product.md#followers) and the custom fields
          (docs/product.md#customers-companies-and-ticket-fields): the loader's markup, plain forms posting to
          /w/:slug/tickets/:number/followers and …/fields, so the page loads no code for them. */}
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: React rendered it on the server from the followers' rows (texts escaped). */}
      <div dangerouslySetInnerHTML={{ __html: followersForm }} />
      {fieldsForm ? (
        // The custom fields (docs/product.md#customers-companies-and-ticket-fields): the loader's markup, a plain form
        // posting to /w/:slug/tickets/:number/fields, so the page loads no code for it.
        // biome-ignore lint/security/noDangerouslySetInnerHtml: React rendered it on the server from the fields' rows (texts escaped).
        <div dangerouslySetInnerHTML={{ __html: fieldsForm }} />
      ) : null}
      <div className="card stack">
        <h2 className="hd-side-title">History</h2>
        <ol className="hd-history">
          {events.map((e) => (
            <li key={e.id}>
              {e.text}
              <br />
              <time className="muted small" dateTime={e.created_at}>
                {formatDate(e.created_at)}
              </time>
            </li>
          ))}
        </ol>
        {ticket.first_response_at ? (
          <p className="muted small">First response {formatDate(ticket.first_response_at)}</p>
        ) : null}
      </div>
    </aside>
  );
}
