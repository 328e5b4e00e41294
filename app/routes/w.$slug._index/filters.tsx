// The inbox's search, filters and sort: a plain GET form, so a view with its filters is a link to keep.
// Searching looks in every view (the form carries no scope); the custom fields' filters sit in a
// <details> of their own. Labels are hidden on a wide screen (the first option says what a select is).
import { Form, useLoaderData } from '@remix-run/react';
import { MemberOptions, PriorityOptions, StatusOptions, TagChip } from '~/components/ticket-labels.tsx';
import { MAX_QUERY_LENGTH } from '~/lib/constants.ts';
import { NO_ASSIGNEE } from '~/lib/helpdesk/ticket-terms.ts';
import type { loader } from './inbox.server.ts';
import { inboxHref } from '~/lib/helpdesk/inbox-href.ts';

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;
type Field = Loaded['fields'][number];
type Filter = Loaded['filters']['fields'][string] | undefined;

/** One custom field's filter: equality for text, a choice and a checkbox; a range for numbers and dates. */
function FieldFilter({ field, value }: { field: Field; value: Filter }) {
  const name = `f.${field.id}`;
  const id = `ff-${field.id}`;
  const one = typeof value === 'string' ? value : '';
  if (field.kind === 'number' || field.kind === 'date') {
    const range = typeof value === 'object' ? value : {};
    const type = field.kind === 'number' ? 'number' : 'date';
    return (
      <fieldset className="hd-range">
        <legend>{field.label}</legend>
        <label htmlFor={`${id}-from`}>from</label>
        <input
          id={`${id}-from`}
          name={`${name}.from`}
          type={type}
          step="any"
          className="input"
          defaultValue={range.from}
        />
        <label htmlFor={`${id}-to`}>to</label>
        <input id={`${id}-to`} name={`${name}.to`} type={type} step="any" className="input" defaultValue={range.to} />
      </fieldset>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{field.label}</label>
      {field.kind === 'text' ? (
        <input id={id} name={name} className="input" defaultValue={one} maxLength={1000} />
      ) : (
        <select id={id} name={name} className="input" defaultValue={one}>
          <option value="">Any</option>
          {field.kind === 'checkbox' ? (
            <>
              <option value="true">Ticked</option>
              <option value="false">Not ticked</option>
            </>
          ) : (
            field.options.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))
          )}
        </select>
      )}
    </div>
  );
}

export function InboxFilters() {
  const { workspace, view, filters, keep, members, fields } = useLoaderData<typeof loader>();
  const fieldsOn = Object.keys(filters.fields).length;
  return (
    <Form method="get" className="hd-filters" role="search">
      <input type="hidden" name="view" value={view} />
      {filters.tag.map((t) => (
        <input key={t} type="hidden" name="tag" value={t} />
      ))}
      <div className="field hd-filters__q">
        <label htmlFor="q">Search</label>
        <input
          id="q"
          name="q"
          type="search"
          className="input"
          defaultValue={filters.q}
          maxLength={MAX_QUERY_LENGTH}
          placeholder="Search all views"
          data-shortcut="/"
        />
      </div>
      <div className="field">
        <label htmlFor="f-status">Status</label>
        <select id="f-status" name="status" className="input" defaultValue={filters.status}>
          <option value="">Any status</option>
          <StatusOptions />
        </select>
      </div>
      <div className="field">
        <label htmlFor="f-priority">Priority</label>
        <select id="f-priority" name="priority" className="input" defaultValue={filters.priority}>
          <option value="">Any priority</option>
          <PriorityOptions />
        </select>
      </div>
      <div className="field">
        <label htmlFor="f-assignee">Assignee</label>
        <select id="f-assignee" name="assignee" className="input" defaultValue={filters.assignee}>
          <option value="">Anyone</option>
          <option value={NO_ASSIGNEE}>Nobody</option>
          <MemberOptions members={members} />
        </select>
      </div>
      <div className="field">
        <label htmlFor="f-sort">Sort</label>
        <select id="f-sort" name="sort" className="input" defaultValue={filters.sort}>
          <option value="">Newest activity</option>
          <option value="oldest">Oldest activity</option>
        </select>
      </div>
      {fields.length ? (
        <details className="hd-field-filters" open={fieldsOn > 0}>
          <summary>Fields{fieldsOn ? ` (${fieldsOn})` : ''}</summary>
          <div className="hd-field-filters__list">
            {fields.map((f) => (
              <FieldFilter key={f.id} field={f} value={filters.fields[f.id]} />
            ))}
          </div>
        </details>
      ) : null}
      <button type="submit" className="button button--secondary">
        Apply
      </button>
      {filters.tag.length ? (
        <p className="hd-filters__tags small" data-testid="tag-filter">
          Tagged{' '}
          {filters.tag.map((t) => (
            <TagChip key={t} name={t} colour="grey">
              {' '}
              <a
                href={inboxHref(workspace.slug, { ...keep, tag: filters.tag.filter((x) => x !== t) })}
                aria-label={`Stop filtering by ${t}`}
              >
                ×
              </a>
            </TagChip>
          ))}
        </p>
      ) : null}
    </Form>
  );
}
