// A customer's page (members only; anyone else, customers included, gets 404;
// docs/product.md#customers-companies-and-ticket-fields): their name, email, company and time zone, their requests here
// (newest activity first, 25 a page), and the team's notes about them, which customers never see. The loader and the
// action are in customer.server.ts.
import type { MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { CustomerNav } from '~/components/customer-nav.tsx';
import {
  ErrorList,
  SelectField,
  SubmitButton,
  TextareaField,
  replyErrors,
  replyFormErrors,
  replyValue,
} from '~/components/forms.tsx';
import { PriorityBadge, StatusBadge } from '~/components/ticket-labels.tsx';
import { formatDate } from '~/lib/helpdesk/format-date.ts';
import type { action, loader } from './customer.server.ts';

export { action, loader } from './customer.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.customer.name} · Customers · ${data.workspace.name} · Tend` : 'Customer · Tend' },
  { name: 'description', content: 'A customer: their requests, time zone and the team’s notes about them.' },
];

const NOTE_MAX = 5000;

function NoteForm({
  intent,
  note,
  body,
  label,
}: {
  intent: 'add_note' | 'edit_note';
  note?: string;
  body: string;
  label: string;
}) {
  const answer = useActionData<typeof action>();
  const mine = answer && replyValue(answer.result, 'intent') === intent && (answer.note ?? undefined) === note;
  const result = mine ? answer.result : undefined;
  const id = note ? `note-body-${note}` : 'note-body';
  return (
    <Form method="post" className="stack" preventScrollReset>
      {note ? <input type="hidden" name="note" value={note} /> : null}
      <ErrorList errors={replyFormErrors(result, 'note')} />
      <TextareaField
        id={id}
        name="body"
        label={label}
        rows={3}
        maxLength={NOTE_MAX}
        required
        defaultValue={replyValue(result, 'body') ?? body}
        errors={replyErrors(result, 'body')}
      />
      <div className="hd-actions">
        <SubmitButton name="intent" value={intent}>
          {note ? 'Save note' : 'Add note'}
        </SubmitButton>
        {note ? (
          <Link to="?#notes" className="button button--ghost" preventScrollReset>
            Cancel
          </Link>
        ) : null}
      </div>
    </Form>
  );
}

export default function CustomerPage() {
  const { workspace, customer, timeZones, tickets, later, older, notes, editing, notice, admin } =
    useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const zoneResult = answer && replyValue(answer.result, 'intent') === 'time_zone' ? answer.result : undefined;
  const base = `/w/${workspace.slug}`;
  return (
    <section className="stack-lg" aria-labelledby="customer-title">
      <div>
        <p className="eyebrow">
          <Link to={`${base}/customers`}>{workspace.name} customers</Link>
        </p>
        <h1 id="customer-title" dir="auto">
          {customer.name}
        </h1>
        <p className="hd-ticket__facts">
          <a href={`mailto:${customer.email}`} data-testid="customer-email">
            {customer.email}
          </a>
          {customer.company ? (
            <>
              {' · '}
              <Link to={`${base}/companies/${customer.company}`} data-testid="customer-company">
                {customer.companyName ?? customer.company}
              </Link>
            </>
          ) : null}
          <span className="muted small">
            {' · '}
            {customer.tickets === 1 ? '1 request' : `${customer.tickets} requests`} · since {customer.since}
          </span>
        </p>
      </div>
      <CustomerNav slug={workspace.slug} />
      {notice ? (
        <p className="notice notice--success" role="status">
          {notice}
        </p>
      ) : null}
      <div className="hd-customer">
        <div className="stack-lg hd-customer__main">
          <section className="card stack" aria-labelledby="requests-title">
            <h2 id="requests-title">Requests</h2>
            {tickets.length ? (
              <ul className="hd-list" data-testid="customer-tickets">
                {tickets.map((t) => (
                  <li key={t.number} className="hd-customer__ticket">
                    <Link to={`${base}/tickets/${t.number}`} dir="auto">
                      #{t.number} {t.subject}
                    </Link>{' '}
                    <StatusBadge status={t.status} /> <PriorityBadge priority={t.priority} />{' '}
                    <time className="muted small" dateTime={t.last_message_at}>
                      {formatDate(t.last_message_at)}
                    </time>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No requests on this page.</p>
            )}
            {later || older ? (
              <nav aria-label="Pages of requests" className="hd-pager">
                {later ? <Link to="?">← Newest</Link> : <span />}
                {older ? (
                  <Link to={`?after=${older}`} rel="next">
                    Older →
                  </Link>
                ) : (
                  <span />
                )}
              </nav>
            ) : null}
          </section>

          <section className="card stack" aria-labelledby="notes-title" id="notes">
            <h2 id="notes-title">Notes</h2>
            <p className="muted small">Only your team sees these notes.</p>
            <NoteForm intent="add_note" body="" label="New note" key={notice ?? 'new'} />
            {notes.length ? (
              <ul className="hd-list" data-testid="customer-notes">
                {notes.map((n) => (
                  <li key={n.id} id={`note-${n.id}`} className="hd-note" data-testid="customer-note">
                    {editing === n.id ? (
                      <NoteForm intent="edit_note" note={n.id} body={n.body} label="Edit note" />
                    ) : (
                      <>
                        <p className="hd-message__body" dir="auto">
                          {n.body}
                        </p>
                        <p className="muted small">
                          {n.written}
                          {n.edited ? ` · ${n.edited}` : ''}
                        </p>
                        {n.versions.length ? (
                          <details className="small">
                            <summary>Earlier versions ({n.versions.length})</summary>
                            <ol className="hd-list">
                              {n.versions.map((v) => (
                                <li key={v.written}>
                                  <p className="hd-message__body" dir="auto">
                                    {v.body}
                                  </p>
                                  <p className="muted">{v.written}</p>
                                </li>
                              ))}
                            </ol>
                          </details>
                        ) : null}
                        <div className="hd-actions">
                          <Link
                            to={`?edit=${n.id}#note-${n.id}`}
                            className="button button--secondary"
                            preventScrollReset
                          >
                            Edit<span className="visually-hidden"> this note</span>
                          </Link>
                          {n.mine || admin ? (
                            <details className="hd-confirm">
                              <summary className="button button--ghost">
                                Delete<span className="visually-hidden"> this note</span>
                              </summary>
                              <Form method="post" className="hd-confirm__body stack">
                                <input type="hidden" name="note" value={n.id} />
                                <p>Delete this note? Its earlier versions go too.</p>
                                <SubmitButton name="intent" value="delete_note" className="button button--danger">
                                  Delete for good
                                </SubmitButton>
                              </Form>
                            </details>
                          ) : null}
                        </div>
                        <ErrorList
                          errors={
                            answer?.note === n.id && replyValue(answer.result, 'intent') === 'delete_note'
                              ? replyFormErrors(answer.result, 'note')
                              : undefined
                          }
                        />
                      </>
                    )}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No notes yet.</p>
            )}
          </section>
        </div>

        <aside className="card stack hd-customer__side" aria-labelledby="zone-title">
          <h2 id="zone-title" className="hd-side-title">
            Time zone
          </h2>
          <p data-testid="customer-time-zone">
            {customer.timeZone ? (
              <>
                {customer.timeZone.replaceAll('_', ' ')}
                {customer.localTime ? <span className="muted small"> · {customer.localTime}</span> : null}
              </>
            ) : (
              <span className="muted">Not known</span>
            )}
          </p>
          <Form method="post" className="stack" preventScrollReset>
            <ErrorList errors={replyFormErrors(zoneResult, 'time_zone')} />
            <SelectField
              id="customer-time-zone-select"
              name="time_zone"
              label="Set their time zone"
              defaultValue={replyValue(zoneResult, 'time_zone') ?? customer.timeZone ?? ''}
            >
              <option value="">Not known</option>
              {timeZones.map((tz) => (
                <option key={tz} value={tz}>
                  {tz.replaceAll('_', ' ')}
                </option>
              ))}
            </SelectField>
            <SubmitButton name="intent" value="time_zone" className="button button--secondary">
              Save time zone
            </SubmitButton>
          </Form>
        </aside>
      </div>
    </section>
  );
}
