// Tags (admins only, docs/product.md#tags): the workspace's tags with how many tickets carry each;
// add one, rename it or change its colour, merge it into another, delete it (after a confirmation),
// and whether agents may create tags while tagging. Row-level security decides every write; an agent
// is refused here (403) as in the database.
import type { MetaFunction } from '@remix-run/node';
import { TagChip } from '~/components/ticket-labels.tsx';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { AdminPageHeader } from '~/components/admin-nav.tsx';
import {
  ErrorList,
  type FormReply,
  SubmitButton,
  replyErrors,
  replyFormErrors,
  replyValue,
} from '~/components/forms.tsx';
import { TAG_COLOURS } from '~/lib/helpdesk/tags.ts';
import { NEW_TAG, SETTING } from './tag-forms.ts';
import type { action, loader } from './tags.server.ts';

export { action, loader } from './tags.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Tags · ${data.workspace.name} · Tend` : 'Tags · Tend' },
];

const count = new Intl.NumberFormat('en');

function ColourSelect({ id, value }: { id: string; value: string }) {
  return (
    <div className="field">
      <label htmlFor={id}>Colour</label>
      <select id={id} name="colour" className="input" defaultValue={value}>
        {TAG_COLOURS.map((c) => (
          <option key={c} value={c}>
            {c[0].toUpperCase() + c.slice(1)}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A name field with its error, keeping what was typed when refused. */
function NameField({ id, value, answer }: { id: string; value?: string; answer?: { result: FormReply } | null }) {
  const errors = replyErrors(answer?.result, 'name');
  return (
    <div className="field">
      <label htmlFor={id}>Name</label>
      <input
        id={id}
        name="name"
        className="input"
        required
        maxLength={40}
        pattern="\s*[A-Za-z0-9][A-Za-z0-9_\-]{0,39}\s*"
        autoComplete="off"
        defaultValue={replyValue(answer?.result, 'name') ?? value}
        aria-invalid={errors ? true : undefined}
        aria-describedby={`${id}-hint${errors ? ` ${id}-error` : ''}`}
      />
      <p id={`${id}-hint`} className="muted small">
        Lower case letters, digits, - and _ (search with tag:name).
      </p>
      <ErrorList id={`${id}-error`} errors={errors} />
    </div>
  );
}

export default function TagsPage() {
  const { workspace, notice, agentsCreateTags, tags } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const answerFor = (target: string) => (answer?.target === target ? answer : null);
  return (
    <section className="stack-lg" aria-labelledby="tags-title">
      <AdminPageHeader
        workspaceName={workspace.name}
        slug={workspace.slug}
        current="tags"
        title="Tags"
        titleId="tags-title"
        notice={notice}
      />

      <section className="card stack" aria-labelledby="new-tag-title">
        <h2 id="new-tag-title">New tag</h2>
        <Form method="post" className="hd-actions">
          <NameField id="new-name" answer={answerFor(NEW_TAG)} />
          <ColourSelect id="new-colour" value={replyValue(answerFor(NEW_TAG)?.result, 'colour') ?? 'grey'} />
          <SubmitButton name="intent" value="add">
            Add tag
          </SubmitButton>
        </Form>
        <ErrorList errors={replyFormErrors(answerFor(NEW_TAG)?.result)} />
      </section>

      <section className="card stack" aria-labelledby="setting-title">
        <h2 id="setting-title">Who creates tags</h2>
        <Form method="post" className="stack">
          <label className="hd-check">
            <input type="checkbox" name="agents_create_tags" value="on" defaultChecked={agentsCreateTags} /> Agents may
            create new tags while tagging a ticket (admins always may)
          </label>
          <div>
            <SubmitButton name="intent" value="agents_create" className="button button--secondary">
              Save setting
            </SubmitButton>
          </div>
        </Form>
        <ErrorList errors={replyFormErrors(answerFor(SETTING)?.result)} />
      </section>

      <section className="card stack" aria-labelledby="all-tags-title">
        <h2 id="all-tags-title">Tags ({tags.length})</h2>
        {tags.length ? (
          <ul className="hd-list" data-testid="tags">
            {tags.map((t) => {
              const mine = answerFor(t.id);
              const others = tags.filter((o) => o.id !== t.id);
              return (
                <li key={t.id} id={`tag-${t.id}`} className="stack" data-testid="tag-row">
                  <h3 className="hd-canned__title">
                    <TagChip name={t.name} colour={t.colour} />{' '}
                    <a className="small" href={`/w/${workspace.slug}?view=all&tag=${t.name}`}>
                      {t.tickets === 1 ? '1 ticket' : `${count.format(t.tickets)} tickets`}
                    </a>
                  </h3>
                  <Form method="post" className="hd-actions" aria-label={`Edit ${t.name}`}>
                    <input type="hidden" name="tag" value={t.id} />
                    <NameField id={`name-${t.id}`} value={t.name} answer={mine} />
                    <ColourSelect id={`colour-${t.id}`} value={t.colour} />
                    <SubmitButton name="intent" value="edit" className="button button--secondary">
                      Save<span className="visually-hidden"> {t.name}</span>
                    </SubmitButton>
                  </Form>
                  <div className="hd-actions">
                    {others.length ? (
                      <details className="hd-confirm">
                        <summary className="button button--ghost">
                          Merge<span className="visually-hidden"> {t.name}</span>…
                        </summary>
                        <Form method="post" className="hd-confirm__body stack">
                          <input type="hidden" name="tag" value={t.id} />
                          <div className="field">
                            <label htmlFor={`into-${t.id}`}>Merge “{t.name}” into</label>
                            <select id={`into-${t.id}`} name="into" className="input">
                              {others.map((o) => (
                                <option key={o.id} value={o.id}>
                                  {o.name}
                                </option>
                              ))}
                            </select>
                          </div>
                          <p className="small">Its tickets get the other tag, and “{t.name}” goes.</p>
                          <SubmitButton name="intent" value="merge" className="button button--danger">
                            Merge<span className="visually-hidden"> {t.name}</span>
                          </SubmitButton>
                        </Form>
                      </details>
                    ) : null}
                    <details className="hd-confirm">
                      <summary className="button button--ghost">
                        Delete<span className="visually-hidden"> {t.name}</span>
                      </summary>
                      <Form method="post" className="hd-confirm__body stack">
                        <input type="hidden" name="tag" value={t.id} />
                        <p>Delete “{t.name}”? It comes off every ticket that has it.</p>
                        <SubmitButton name="intent" value="delete" className="button button--danger">
                          Delete for good<span className="visually-hidden"> {t.name}</span>
                        </SubmitButton>
                      </Form>
                    </details>
                  </div>
                  <ErrorList id={`tag-${t.id}-error`} errors={replyFormErrors(mine?.result)} />
                </li>
              );
            })}
          </ul>
        ) : (
          <p className="muted">No tags yet. Add one here, or tag a ticket from its page.</p>
        )}
      </section>
    </section>
  );
}
