// The inbox's search and filters: a plain GET form, so a view with its filters is a link to keep.
import { Form, useLoaderData } from '@remix-run/react';
import { MemberOptions, PriorityOptions, StatusOptions, TagChip } from '~/components/ticket-labels.tsx';
import { MAX_QUERY_LENGTH } from '~/lib/constants.ts';
import { NO_ASSIGNEE } from '~/lib/helpdesk/ticket-terms.ts';
import type { loader } from './inbox.server.ts';
import { inboxHref } from './inbox-href.ts';

export function InboxFilters() {
  const { workspace, view, filters, members } = useLoaderData<typeof loader>();
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
          data-shortcut="/"
        />
      </div>
      <div className="field">
        <label htmlFor="f-status">Status</label>
        <select id="f-status" name="status" className="input" defaultValue={filters.status}>
          <option value="">Any</option>
          <StatusOptions />
        </select>
      </div>
      <div className="field">
        <label htmlFor="f-priority">Priority</label>
        <select id="f-priority" name="priority" className="input" defaultValue={filters.priority}>
          <option value="">Any</option>
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
                href={inboxHref(workspace.slug, { view, ...filters, tag: filters.tag.filter((x) => x !== t) })}
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
