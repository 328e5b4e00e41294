// Canned replies (admins only, docs/product.md §2, §6): the workspace's saved answers, which agents
// insert from the composer's picker. Add, edit (?edit=<id>), delete after a confirmation, and preview a
// reply with its placeholders filled for an example ticket. Row-level security decides every read and
// write; an agent is refused here (403) as in the database.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useLocation } from '@remix-run/react';
import { AdminNav } from '~/components/admin-nav.tsx';
import { ErrorList, Field, SubmitButton, replyErrors, replyFormErrors, replyValue } from '~/components/forms.tsx';
import { TextareaField } from '~/components/helpdesk-ui.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { CANNED_REPLY_BODY_MAX_LENGTH, CANNED_REPLY_TITLE_MAX_LENGTH } from '~/lib/constants.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { CannedRepliesSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { PLACEHOLDER_HELP, PLACEHOLDERS, fillPlaceholders } from '~/lib/helpdesk/canned-replies.ts';
import { byTitle, exampleValues } from '~/lib/helpdesk/canned-replies.server.ts';
import { profileNames, requireAdmin } from '~/lib/helpdesk/queries.server.ts';
import { formatDate, UUID_RE } from '~/lib/helpdesk/vocabulary.ts';
import { data, readFormData, redirectWithHeaders, requireSameOrigin } from '~/lib/http/responses.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Canned replies · ${data.workspace.name} · Tend` : 'Canned replies · Tend' },
];

const NOTICES = {
  added: 'Canned reply added.',
  saved: 'Canned reply saved.',
  deleted: 'Canned reply deleted.',
} as const;
type Notice = keyof typeof NOTICES;

/** A new reply's form (the action's `target`); an existing one's is its id. */
const NEW = 'new';

async function requireAdminPage(request: Request, slug: string) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, slug);
  return { supabase, workspace, example: exampleValues(workspace, user) };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { supabase, workspace, example } = await requireAdminPage(request, params.slug ?? '');
  const { data: rows, error } = await supabase
    .from('canned_replies')
    .select('id, title, body, created_by, created_at, updated_by, updated_at')
    .eq('workspace_id', workspace.id);
  if (error) throwDbError(request, error, 'canned replies');
  const names = await profileNames(
    request,
    supabase,
    rows.flatMap((r) => [r.created_by, r.updated_by]),
  );
  const who = (id: string | null) => (id && names.get(id)) || 'someone';
  const search = new URL(request.url).searchParams;
  const notice = search.get('done');
  const edit = search.get('edit');
  return data(request, {
    adminOf: workspace.slug,
    workspace,
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    editing: rows.some((r) => r.id === edit) ? edit : null,
    placeholders: PLACEHOLDERS.map((name) => ({ name, help: PLACEHOLDER_HELP[name], example: example[name] })),
    replies: rows.sort(byTitle).map((r) => ({
      id: r.id,
      title: r.title,
      body: r.body,
      added: `Added by ${who(r.created_by)} on ${formatDate(r.created_at)}`,
      edited: r.updated_at ? `edited by ${who(r.updated_by)} on ${formatDate(r.updated_at)}` : null,
    })),
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { supabase, workspace, example } = await requireAdminPage(request, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), CannedRepliesSchema);
  if (submission.status !== 'success') {
    const reply = submission.payload.reply;
    const target = typeof reply === 'string' && UUID_RE.test(reply) ? reply : NEW;
    return data(request, { result: submission.reply(), target, preview: null }, { status: 400 });
  }
  const value = submission.value;
  const target = 'reply' in value && value.reply ? value.reply : NEW;
  const done = (notice: Notice) => redirectWithHeaders(request, `/w/${workspace.slug}/settings/replies?done=${notice}`);
  const refuse = (error: Parameters<typeof mapDbError>[0] | null, context: string) => {
    // 23505: the title is another reply's (canned_replies_title_key); no row: deleted meanwhile, or hidden.
    if (error?.code === '23505') {
      const reply = submission.reply({ fieldErrors: { title: [errorMessage('title_taken')] } });
      return data(request, { result: reply, target, preview: null }, { status: errorStatus('title_taken') });
    }
    const { message, status } = error
      ? mapDbError(error, context)
      : { message: errorMessage('not_found'), status: errorStatus('not_found') };
    return data(request, { result: submission.reply({ formErrors: [message] }), target, preview: null }, { status });
  };

  switch (value.intent) {
    case 'preview':
      return data(request, { result: submission.reply(), target, preview: fillPlaceholders(value.body, example) });
    case 'create': {
      const { error } = await supabase
        .from('canned_replies')
        .insert({ workspace_id: workspace.id, title: value.title, body: value.body });
      return error ? refuse(error, 'add canned reply') : done('added');
    }
    case 'update': {
      const { data: rows, error } = await supabase
        .from('canned_replies')
        .update({ title: value.title, body: value.body })
        .eq('workspace_id', workspace.id)
        .eq('id', value.reply)
        .select('id');
      return error || !rows.length ? refuse(error, 'edit canned reply') : done('saved');
    }
    case 'delete': {
      const { data: rows, error } = await supabase
        .from('canned_replies')
        .delete()
        .eq('workspace_id', workspace.id)
        .eq('id', value.reply)
        .select('id');
      return error || !rows.length ? refuse(error, 'delete canned reply') : done('deleted');
    }
  }
}

type ActionData = ReturnType<typeof useActionData<typeof action>>;

/** The form of a new reply or of one being edited, with its preview. */
function ReplyForm({
  id,
  stored,
  answer,
}: {
  id: string;
  stored?: { title: string; body: string };
  answer: ActionData | undefined;
}) {
  const result = answer?.target === id ? answer.result : undefined;
  const kept = (name: 'title' | 'body') => (result ? (replyValue(result, name) ?? '') : (stored?.[name] ?? ''));
  const editing = id !== NEW;
  return (
    <Form method="post" noValidate className="stack" aria-label={editing ? `Edit ${stored?.title}` : undefined}>
      {editing ? <input type="hidden" name="reply" value={id} /> : null}
      <ErrorList errors={replyFormErrors(result, 'reply')} />
      <Field
        label="Title"
        hint="What agents search for in the composer. Each title once."
        errors={replyErrors(result, 'title')}
        inputProps={{
          id: `${id}-title`,
          name: 'title',
          type: 'text',
          defaultValue: kept('title'),
          required: true,
          maxLength: CANNED_REPLY_TITLE_MAX_LENGTH,
          autoComplete: 'off',
        }}
      />
      <TextareaField
        id={`${id}-body`}
        name="body"
        label="Reply"
        hint="Placeholders such as {{requester.name}} are filled in when an agent inserts the reply."
        errors={replyErrors(result, 'body')}
        defaultValue={kept('body')}
        required
        maxLength={CANNED_REPLY_BODY_MAX_LENGTH}
        rows={6}
      />
      <div className="hd-actions">
        <SubmitButton name="intent" value={editing ? 'update' : 'create'}>
          {editing ? 'Save' : 'Add canned reply'}
        </SubmitButton>
        <SubmitButton name="intent" value="preview" className="button button--secondary">
          Preview
        </SubmitButton>
        {editing ? (
          <Link to="." className="button button--ghost">
            Cancel
          </Link>
        ) : null}
      </div>
      {result && answer?.preview != null ? (
        <section className="hd-canned__preview" aria-labelledby={`${id}-preview`} data-testid="canned-preview">
          <h3 id={`${id}-preview`} className="small">
            Preview for an example ticket
          </h3>
          <p className="hd-message__body">{answer.preview}</p>
        </section>
      ) : null}
    </Form>
  );
}

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
