// The form of a new canned reply or of one being edited, with its preview.
import { Form, Link, type useActionData } from '@remix-run/react';
import {
  ErrorList,
  Field,
  SubmitButton,
  replyErrors,
  replyFormErrors,
  replyValue,
  TextareaField,
} from '~/components/forms.tsx';
import { CANNED_REPLY_BODY_MAX_LENGTH, CANNED_REPLY_TITLE_MAX_LENGTH } from '~/lib/constants.ts';
import type { action } from './replies.server.ts';

/** A new reply's form (the action's `target`); an existing one's is its id. */
export const NEW = 'new';

type ActionData = ReturnType<typeof useActionData<typeof action>>;

/** The form of a new reply or of one being edited, with its preview. */
export function ReplyForm({
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
