// The inbox's bulk changes (docs/product.md#bulk-changes): a form the rows' checkboxes belong to (form="bulk"),
// one "Update tickets" for assign, status, priority, add or remove a tag, and "All … matching this view" for
// every ticket the view, search and filters match, not only those on the page. It works without
// JavaScript; with it, shift-click selects a range and the bar says how many are selected (table.tsx).
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { ErrorList, Field, SubmitButton, replyErrors, replyFormErrors } from '~/components/forms.tsx';
import { AGENT_STATUSES, PRIORITIES, PRIORITY_LABELS, STATUS_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import type { action, loader } from './inbox.server.ts';
import { inboxHref } from '~/lib/helpdesk/inbox-href.ts';

const count = new Intl.NumberFormat('en');

/** A bulk merge to confirm (docs/product.md#merge): the tickets named, the oldest kept; its own form. */
function MergeConfirm({ into, tickets, back }: MergeAsk & { back: string }) {
  return (
    <Form method="post" className="card stack" aria-label="Confirm the merge">
      <input type="hidden" name="intent" value="bulk" />
      <input type="hidden" name="bulk_action" value="merge" />
      <input type="hidden" name="confirm" value="on" />
      <p>
        Merge{' '}
        {tickets
          .filter((t) => t.id !== into.id)
          .map((t) => `#${t.number}`)
          .join(', ')}{' '}
        into{' '}
        <bdi>
          #{into.number} {into.subject}
        </bdi>
        ? Their messages, notes and files move there, and they are closed for good.
      </p>
      {tickets.map((t) => (
        <input key={t.id} type="hidden" name="ticket" value={t.id} />
      ))}
      <div className="hd-check">
        <button type="submit" className="button">
          Merge {tickets.length} tickets
        </button>
        <a href={back}>Cancel</a>
      </div>
    </Form>
  );
}
type Ticket = { id: string; number: number; subject: string };
type MergeAsk = { into: Ticket; tickets: Ticket[] };

export function BulkBar({ selected }: { selected: number | null }) {
  const { workspace, view, keep, members, total, adminOf } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const result = answer && 'result' in answer ? answer.result : undefined;
  const statuses = adminOf ? [...AGENT_STATUSES, 'closed' as const] : AGENT_STATUSES;
  const ask = answer && 'mergeConfirm' in answer ? (answer.mergeConfirm as MergeAsk) : null;
  if (ask) return <MergeConfirm {...ask} back={inboxHref(workspace.slug, keep)} />;
  return (
    <Form id="bulk" method="post" className="hd-bulk" aria-label="Change the selected requests">
      <input type="hidden" name="intent" value="bulk" />
      <div className="field">
        <label htmlFor="bulk-action" className="visually-hidden">
          Change the selected
        </label>
        <select id="bulk-action" name="bulk_action" className="input" defaultValue="">
          <option value="">Change the selected…</option>
          <optgroup label="Assign to">
            <option value="assign:me">Me</option>
            <option value="assign:none">Nobody</option>
            {members.map((m) => (
              <option key={m.user_id} value={`assign:${m.user_id}`}>
                {m.name}
              </option>
            ))}
          </optgroup>
          <optgroup label="Set status">
            {statuses.map((s) => (
              <option key={s} value={`status:${s}`}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </optgroup>
          <optgroup label="Set priority">
            {PRIORITIES.map((p) => (
              <option key={p} value={`priority:${p}`}>
                {PRIORITY_LABELS[p]}
              </option>
            ))}
          </optgroup>
          <optgroup label="Tags">
            <option value="add_tag">Add the tag</option>
            <option value="remove_tag">Remove the tag</option>
          </optgroup>
          <option value="merge">Merge into the oldest</option>
          {/* Spam and Trash, and back (docs/product.md#spam-and-trash). */}
          <optgroup label="Move">
            {view === 'trash' ? (
              <option value="restore">Restore from Trash</option>
            ) : (
              <>
                <option value={view === 'spam' ? 'not_spam' : 'spam'}>
                  {view === 'spam' ? 'Not spam' : 'Mark as spam'}
                </option>
                <option value="trash">Delete (to Trash)</option>
              </>
            )}
          </optgroup>
        </select>
        <ErrorList errors={replyErrors(result, 'bulk_action')} />
      </div>
      {/* Shown when a tag action is chosen (CSS), or when it was refused. */}
      <div className={`hd-bulk__tag${replyErrors(result, 'tag') ? ' hd-bulk__tag--shown' : ''}`}>
        <Field
          label="Tag"
          errors={replyErrors(result, 'tag')}
          inputProps={{ id: 'bulk-tag', name: 'tag', autoComplete: 'off', maxLength: 40, placeholder: 'Tag' }}
        />
      </div>
      <label className="hd-check">
        <input type="checkbox" name="all_matching" value="on" /> All {total === null ? '' : `${count.format(total)} `}
        matching this view
      </label>
      <SubmitButton className="button button--secondary">Update tickets</SubmitButton>
      {selected !== null ? (
        <span className="small muted" role="status" data-testid="selected">
          {selected} selected
        </span>
      ) : null}
      <ErrorList errors={replyFormErrors(result, 'ticket')} />
    </Form>
  );
}

/**
 * Admins: every ticket in Trash deleted for good now, with their files (docs/product.md#spam-and-trash), after a
 * confirmation step that works without JavaScript (a <details>).
 */
export function EmptyTrash() {
  const { counts } = useLoaderData<typeof loader>();
  return (
    <details className="hd-confirm">
      <summary className="button button--ghost">Empty trash</summary>
      <Form method="post" className="hd-confirm__body stack">
        <p>
          Delete the {count.format(counts.trash)} tickets in Trash for good, with their messages and files? This can’t
          be undone.
        </p>
        <SubmitButton name="intent" value="empty_trash" className="button button--danger">
          Delete {count.format(counts.trash)} tickets for good
        </SubmitButton>
      </Form>
    </details>
  );
}
