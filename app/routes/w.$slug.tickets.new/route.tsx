// An agent starts a conversation with a customer by email (docs/product.md; issue 29 item 5): the
// customer's address, a subject, the message (Markdown, as in the composer) and files. The customer
// gets it as an email from the workspace's sender and answers by replying; the ticket is the agent's,
// waiting on the customer. The loader and the action are in new-conversation.server.ts.
import type { MetaFunction } from '@remix-run/node';
import type { ClientActionFunctionArgs } from '@remix-run/react';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { AttachmentsField } from '~/components/attachments.tsx';
import {
  ErrorList,
  Field,
  isOffline,
  replyErrors,
  replyFormErrors,
  replyValue,
  sendOrKeep,
  SubmitButton,
  useIsPending,
} from '~/components/forms.tsx';
import { MessageField } from '~/components/message-field.tsx';
import { SUBJECT_MAX_LENGTH } from '~/lib/constants.ts';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import { FILES_FIELD } from '~/lib/helpdesk/attachments.ts';
import type { action, loader } from './new-conversation.server.ts';

export { action, loader } from './new-conversation.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `New conversation · ${data.workspace.name} · Tend` : 'New conversation · Tend' },
  { name: 'description', content: 'Write to a customer: they get it by email and answer by replying.' },
];

/** With the network down, the page and what was typed stay as they are (forms.tsx). */
export const clientAction = ({ serverAction }: ClientActionFunctionArgs) => sendOrKeep(serverAction<typeof action>);

export default function NewConversation() {
  const { workspace, clientKey } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const result = actionData && 'result' in actionData ? actionData.result : undefined;
  const pending = useIsPending();
  return (
    <section className="stack-lg hd-new-conversation" aria-labelledby="new-conversation-title">
      <div>
        <p className="eyebrow">
          <Link to={`/w/${workspace.slug}`}>{workspace.name} inbox</Link>
        </p>
        <h1 id="new-conversation-title">New conversation</h1>
        <p className="muted">
          The customer gets your message by email from {workspace.name} and answers by replying to it.
        </p>
      </div>
      <Form method="post" encType="multipart/form-data" className="card stack" noValidate>
        <input type="hidden" name="client_key" value={clientKey} />
        <ErrorList
          errors={isOffline(actionData) ? [errorMessage('offline')] : replyFormErrors(result, 'requester', 'subject')}
        />
        <Field
          label="Customer’s email"
          errors={replyErrors(result, 'requester')}
          inputProps={{
            id: 'requester',
            name: 'requester',
            type: 'email',
            autoComplete: 'off',
            required: true,
            defaultValue: replyValue(result, 'requester'),
          }}
        />
        <Field
          label="Subject"
          errors={replyErrors(result, 'subject')}
          inputProps={{
            id: 'subject',
            name: 'subject',
            required: true,
            maxLength: SUBJECT_MAX_LENGTH,
            defaultValue: replyValue(result, 'subject'),
          }}
        />
        <MessageField
          id="body"
          name="body"
          label="Message"
          hint="Markdown works: **bold**, _italic_, - lists, > quotes, [links](https://…)."
          errors={replyErrors(result, 'body')}
          defaultValue={replyValue(result, 'body') ?? ''}
          required
          rows={8}
        />
        <AttachmentsField
          errors={replyErrors(result, FILES_FIELD)}
          keptNames={actionData && 'fileNames' in actionData ? actionData.fileNames : undefined}
        />
        <div className="hd-actions">
          <SubmitButton pending={pending}>Send</SubmitButton>
        </div>
      </Form>
    </section>
  );
}
