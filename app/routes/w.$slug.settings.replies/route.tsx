// Canned replies (admins only, docs/product.md §2, §6): the workspace's saved answers, which agents
// insert from the composer's picker. Add, edit (?edit=<id>), delete after a confirmation, and preview a
// reply with its placeholders filled for an example ticket. Row-level security decides every read and
// write; an agent is refused here (403) as in the database.
import type { MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useLocation } from '@remix-run/react';
import { AdminNav } from '~/components/admin-nav.tsx';
import { ErrorList, SubmitButton, replyFormErrors, replyValue } from '~/components/forms.tsx';
import type { action, loader } from './replies.server.ts';
import { NEW, ReplyForm } from './reply-form.tsx';

export { action, loader } from './replies.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Canned replies · ${data.workspace.name} · Tend` : 'Canned replies · Tend' },
  {
    name: 'description',
    content: 'The team’s canned replies: saved answers with placeholders, inserted in the composer.',
  },
];

export default function CannedRepliesPage() {
  const { workspace, notice, editing, placeholders, replies } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  // Each arrival after a saved change starts the new-reply form afresh; while refused it stays mounted.
  const { key: arrival } = useLocation();
  const intent = replyValue(answer?.result, 'intent');
  // The reply shown as a form: the one asked for (?edit=), or the one whose edit or preview came back.
  const open = answer && answer.target !== NEW && intent !== 'delete' ? answer.target : editing;

  return (
    <section className="stack-lg" aria-labelledby="replies-title">
      <div>
        <p className="eyebrow">{workspace.name}</p>
        <h1 id="replies-title">Canned replies</h1>
      </div>
      <AdminNav slug={workspace.slug} current="replies" />
      {notice ? (
        <p className="notice notice--success" role="status">
          {notice}
        </p>
      ) : null}

      <section className="card stack" aria-labelledby="new-reply-title">
        <h2 id="new-reply-title">New canned reply</h2>
        <ReplyForm id={NEW} answer={answer} key={answer?.target === NEW ? 'refused' : arrival} />
      </section>

      <section className="card stack" aria-labelledby="placeholders-title">
        <h2 id="placeholders-title">Placeholders</h2>
        <p className="muted small">Write them with the braces. The preview fills them for an example ticket.</p>
        <dl className="hd-placeholders">
          {placeholders.map((p) => (
            <div key={p.name}>
              <dt>
                <code>{`{{${p.name}}}`}</code>
              </dt>
              <dd>
                {p.help}, e.g. <q>{p.example}</q>
              </dd>
            </div>
          ))}
        </dl>
      </section>

      <section className="card stack" aria-labelledby="saved-title">
        <h2 id="saved-title">Saved replies ({replies.length})</h2>
        {replies.length ? (
          <ul className="hd-list" data-testid="canned-replies">
            {replies.map((r) => (
              <li key={r.id} id={`reply-${r.id}`} className="hd-canned" data-testid="canned-reply">
                {open === r.id ? (
                  <ReplyForm id={r.id} stored={r} answer={answer} />
                ) : (
                  <>
                    <h3 className="hd-canned__title">{r.title}</h3>
                    <p className="hd-message__body">{r.body}</p>
                    <p className="muted small">
                      {r.added}
                      {r.edited ? `, ${r.edited}` : ''}
                    </p>
                    <div className="hd-actions">
                      <Link to={`?edit=${r.id}#reply-${r.id}`} className="button button--secondary">
                        Edit<span className="visually-hidden"> {r.title}</span>
                      </Link>
                      <details className="hd-confirm">
                        <summary className="button button--ghost">
                          Delete<span className="visually-hidden"> {r.title}</span>
                        </summary>
                        <Form method="post" className="hd-confirm__body stack">
                          <input type="hidden" name="reply" value={r.id} />
                          <p>Delete “{r.title}”? Agents can no longer insert it.</p>
                          <SubmitButton name="intent" value="delete" className="button button--danger">
                            Delete for good<span className="visually-hidden"> {r.title}</span>
                          </SubmitButton>
                        </Form>
                      </details>
                    </div>
                    <ErrorList
                      id={`reply-${r.id}-error`}
                      errors={answer && answer.target === r.id ? replyFormErrors(answer.result, 'reply') : undefined}
                    />
                  </>
                )}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No canned replies yet. Add the answers your team writes most often.</p>
        )}
      </section>
    </section>
  );
}
