// Open a request in a workspace (create_ticket: ticket + first message + its files in one transaction;
// the files are streamed to storage first, under the ticket id create_ticket then takes, in the
// uploader's own prefix).
// Help articles that may answer it are suggested (docs/product.md#the-help-center-public): with JavaScript as the
// subject is typed; without, after the first submit, with "My question is answered" / "Send my request anyway"
// and everything typed kept — its files too, already uploaded and carried to the next submit
// (app/lib/help/request-files.ts), so none must be chosen again.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import type { ClientActionFunctionArgs, ShouldRevalidateFunction } from '@remix-run/react';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import {
  ErrorList,
  isOffline,
  sendOrKeep,
  Field,
  SubmitButton,
  replyErrors,
  replyFormErrors,
  replyValue,
  useIsPending,
} from '~/components/forms.tsx';
import { AttachmentsField } from '~/components/attachments.tsx';
import { MessageField } from '~/components/message-field.tsx';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import { useHydrated } from '~/components/form-controls.tsx';
import { SuggestionList, useSubjectSuggestions } from '~/components/request-suggestions.tsx';
import { requireUser } from '~/lib/auth/session.server.ts';
import { SUBJECT_MAX_LENGTH } from '~/lib/constants.ts';
import { errorMessage as serverMessage } from '~/lib/errors/catalogue.server.ts';
import { mapDbError } from '~/lib/errors/from-db.server.ts';
import { NewRequestSchema } from '~/lib/forms/helpdesk-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { FILES_FIELD } from '~/lib/helpdesk/attachments.ts';
import { cutSubject, withRest } from '../../supabase/functions/_shared/long-subject.ts';
import { attachmentsArg, readMessageForm, removeUploads, type Upload } from '~/lib/helpdesk/attachments.server.ts';
import { requireWorkspace } from '~/lib/helpdesk/workspace-access.server.ts';
import type { SuggestedArticle } from '~/lib/help/articles.ts';
import { suggest } from '~/lib/help/help.server.ts';
import { log } from '~/lib/http/log.server.ts';
import {
  KEPT_FILES_FIELD,
  KEPT_TICKET_PARAM,
  SCRIPTED_FIELD,
  keptTicketId,
  parseKeptFiles,
} from '~/lib/help/request-files.ts';
import { dataWithSession, errorResponse, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';
import helpStyles from '~/styles/help.css';

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: helpStyles }];

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `New request · ${data.workspace.name} · Tend` : 'New request · Tend' },
  {
    name: 'description',
    content: data
      ? `Ask ${data.workspace.name} a question or report a problem.`
      : 'Ask a question or report a problem.',
  },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { supabase } = await requireUser(request);
  const workspace = await requireWorkspace(request, supabase, params.slug ?? '');
  // "Submit a request" from a search with no result brings its query as the subject (a long one: its
  // end starts the message).
  const { subject, rest } = cutSubject(new URL(request.url).searchParams.get('subject') ?? '');
  return dataWithSession(request, { workspace, clientKey: crypto.randomUUID(), subject, body: rest });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  // The page's own look-up first: an unknown workspace or an unreachable database is its error page
  // (with the text given back, kept-form.server.ts), not a message in the form.
  const { id: workspaceId, slug } = await requireWorkspace(request, supabase, params.slug ?? '');
  // Files kept from the suggestions step are under the ticket id the form's address carries.
  const ticketId = keptTicketId(new URL(request.url)) ?? crypto.randomUUID();
  const folder = { uploaderId: user.id, workspaceId, ticketId };
  const {
    form,
    uploads: added,
    fileErrors,
    fileNames,
  } = await readMessageForm(request, supabase, folder, {
    keepAccepted: true,
  });
  // Without JavaScript a refused post forgets every chosen file: the accepted ones wait in storage, as
  // across the suggestions step. With it, the page keeps them chosen and sends them again.
  const scripted = form.get(SCRIPTED_FIELD) === '1';
  const keptFiles = parseKeptFiles(form.get(KEPT_FILES_FIELD));
  if (!keptFiles) {
    await removeUploads(supabase, added);
    throw errorResponse(request, 'bad_request');
  }
  const kept: Upload[] = keptFiles.map((f) => ({
    ...f,
    key: `${user.id}/${workspaceId}/${ticketId}/${f.id}/${f.storage_name}`,
  }));
  const uploads = [...kept, ...added];
  const keep = (files: Upload[]) => (files.length ? { ticket: ticketId, files: attachmentsArg(files) } : null);
  if (form.get('intent') === 'answered') return answered(request, supabase, slug, uploads);
  // A subject over the limit is cut at a word and its end moved to the message, then shown to check.
  const long = cutSubject(String(form.get('subject') ?? ''));
  if (long.rest) {
    form.set('subject', long.subject);
    form.set('body', withRest(long.rest, String(form.get('body') ?? '')));
  }
  const submission = parseSubmission(form, NewRequestSchema);
  if (submission.status !== 'success' || fileErrors.length || long.rest) {
    // Files kept earlier stay kept; those just chosen too, unless the page still has them chosen.
    if (scripted) await removeUploads(supabase, added);
    const waiting = scripted ? kept : uploads;
    const fieldErrors = {
      ...(fileErrors.length ? { [FILES_FIELD]: fileErrors } : {}),
      ...(long.rest ? { subject: [serverMessage('subject_cut')] } : {}),
    };
    const result = submission.reply(Object.keys(fieldErrors).length ? { fieldErrors } : undefined);
    // `cut`: the fields the server changed, shown anew (with JavaScript the page keeps its inputs otherwise).
    return dataWithSession(
      request,
      { result, fileNames: scripted ? fileNames : [], kept: keep(waiting), cut: long.rest ? long.subject : null },
      { status: 400 },
    );
  }
  // No JavaScript (which shows them as the subject is typed): the articles first, once; the files wait in storage.
  if (!form.get('suggestions_seen')) {
    const suggestions = await suggest(request, slug, submission.value.subject);
    if (suggestions.length) {
      return dataWithSession(request, { result: submission.reply(), fileNames: [], suggestions, kept: keep(uploads) });
    }
  }

  const { data: rows, error } = await supabase.rpc('create_ticket', {
    p_workspace_slug: slug,
    p_subject: submission.value.subject,
    p_body: submission.value.body,
    p_ticket_id: ticketId,
    p_attachments: attachmentsArg(uploads),
    p_client_key: submission.value.client_key,
  });
  if (error) {
    await removeUploads(supabase, uploads);
    const mapped = mapDbError(error, 'create_ticket');
    return dataWithSession(
      request,
      {
        result: submission.reply({ formErrors: [mapped.message] }),
        fileNames: [...kept.map((u) => u.file_name), ...fileNames],
      },
      { status: mapped.status },
    );
  }
  const created = rows?.[0];
  return redirectWithSession(request, created ? `/support/${slug}/requests/${created.number}` : `/support/${slug}`);
}

/** "My question is answered": nothing is sent; the answer counts for the reports (a deflection). */
async function answered(request: Request, supabase: Supabase, slug: string, uploads: Upload[]) {
  await removeUploads(supabase, uploads);
  const { error } = await supabase.rpc('record_help_suggestion', { p_slug: slug, p_kind: 'answered' });
  if (error) log.warn('help: answered not recorded', { message: error.message });
  return redirectWithSession(request, `/support/${slug}?answered=1`, { status: 303 });
}

/** With the network down, the page and the request stay as they are (forms.tsx). */
export const clientAction = ({ serverAction }: ClientActionFunctionArgs) => sendOrKeep(serverAction<typeof action>);
export const shouldRevalidate: ShouldRevalidateFunction = ({ actionResult, defaultShouldRevalidate }) =>
  !isOffline(actionResult) && defaultShouldRevalidate;

/** The subject counts its characters from here on (with JavaScript). */
const SUBJECT_COUNTER_FROM = SUBJECT_MAX_LENGTH - 20;

export default function NewRequest() {
  const { workspace, clientKey, subject, body } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const pending = useIsPending();
  const result = actionData?.result;
  // A field changed since the server's answer shows its message no more (JavaScript): it may be fixed.
  const [changed, setChanged] = useState<{ of: unknown; names: string[] }>({ of: null, names: [] });
  const errorsOf = (name: string) =>
    changed.of === actionData && changed.names.includes(name) ? undefined : replyErrors(result, name);
  const cut = (actionData as { cut?: string | null } | undefined)?.cut;
  const fieldKey = cut ? `cut:${cut}` : 'typed';
  // The subject's length as typed, until the server gives a new subject.
  const [typed, setTyped] = useState<{ key: string; length: number } | null>(null);
  const subjectLength = typed?.key === fieldKey ? typed.length : null;
  const subjectOver = (subjectLength ?? 0) > SUBJECT_MAX_LENGTH;
  const hydrated = useHydrated();
  const live = useSubjectSuggestions(workspace.slug);
  const suggestions = (actionData as { suggestions?: SuggestedArticle[] } | undefined)?.suggestions ?? null;
  const kept =
    (actionData as { kept?: { ticket: string; files: { file_name: string }[] } | null } | undefined)?.kept ?? null;
  return (
    <section className="card card--narrow" aria-labelledby="new-title">
      <p className="eyebrow">
        <Link to={`/support/${workspace.slug}`}>{workspace.name}</Link>
      </p>
      <h1 id="new-title">Submit a request</h1>
      <Form
        method="post"
        // Files already uploaded wait under this ticket id for the next submit.
        action={kept ? `/support/${workspace.slug}/new?${KEPT_TICKET_PARAM}=${kept.ticket}` : undefined}
        className="stack"
        encType="multipart/form-data"
        noValidate
        onInput={(event) => {
          const { name } = event.target as HTMLInputElement;
          const names = changed.of === actionData ? changed.names : [];
          if (name && !names.includes(name)) setChanged({ of: actionData, names: [...names, name] });
        }}
      >
        <input type="hidden" name="client_key" value={clientKey} />
        {kept ? <input type="hidden" name={KEPT_FILES_FIELD} value={JSON.stringify(kept.files)} /> : null}
        {/* Suggestions already shown (live with JavaScript, or on the page the server sent): the next submit sends. */}
        {hydrated || suggestions ? <input type="hidden" name="suggestions_seen" value="1" /> : null}
        {hydrated ? <input type="hidden" name={SCRIPTED_FIELD} value="1" /> : null}
        <Field
          label="Subject"
          hint={`Up to ${SUBJECT_MAX_LENGTH} characters; anything longer goes to the top of the message.`}
          errors={errorsOf('subject')}
          inputProps={{
            id: 'subject',
            key: fieldKey,
            name: 'subject',
            type: 'text',
            defaultValue: replyValue(result, 'subject') ?? subject,
            required: true,
            // No maxLength: the browser would cut a pasted subject without a word (docs/product.md §5).
            onChange: (event) => {
              live.onSubjectChange(event);
              setTyped({ key: fieldKey, length: event.currentTarget.value.trim().length });
            },
          }}
        />
        <p
          id="subject-counter"
          className={subjectOver ? 'hd-counter hd-counter--over' : 'hd-counter'}
          aria-live="polite"
          data-testid="subject-counter"
        >
          {subjectLength === null || subjectLength < SUBJECT_COUNTER_FROM
            ? null
            : `${subjectLength} of ${SUBJECT_MAX_LENGTH} characters${
                subjectOver
                  ? '. When you send, the subject ends at the last whole word that fits and the rest goes to the top of the message.'
                  : ''
              }`}
        </p>
        {suggestions ? null : live.panel}
        <MessageField
          key={fieldKey}
          id="body"
          name="body"
          label="Message"
          errors={errorsOf('body')}
          defaultValue={replyValue(result, 'body') ?? body}
          required
          rows={8}
        />
        {kept ? (
          <p className="small" data-testid="attached-files">
            Attached, sent with your request: {kept.files.map((f) => f.file_name).join(', ')}
          </p>
        ) : null}
        <AttachmentsField errors={errorsOf(FILES_FIELD)} keptNames={actionData?.fileNames} />
        <ErrorList errors={isOffline(actionData) ? [errorMessage('offline')] : replyFormErrors(result)} />
        {suggestions ? (
          <section className="notice stack" aria-labelledby="suggested-title" role="status">
            <h2 id="suggested-title">Before you send: these articles may answer your question</h2>
            <SuggestionList suggestions={suggestions} />
            <p className="hd-actions">
              <button type="submit" name="intent" value="answered" className="button button--secondary">
                My question is answered
              </button>
              <SubmitButton pending={pending}>Send my request anyway</SubmitButton>
            </p>
          </section>
        ) : (
          <SubmitButton pending={pending}>Submit request</SubmitButton>
        )}
      </Form>
    </section>
  );
}
