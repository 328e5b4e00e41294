// Forward a ticket, or one of its public messages (chosen here, or ?message=<id>), to an outside address with a note
// (issue 29 item 5; docs/decisions/057-new-conversations-and-forwards.md). The outside party gets the
// note and the conversation by email; their answer comes back into the ticket as an internal note,
// never to the customer. The loader and the action are in forward.server.ts.
import type { MetaFunction } from '@remix-run/node';
import type { ClientActionFunctionArgs } from '@remix-run/react';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import {
  ErrorList,
  Field,
  isOffline,
  replyErrors,
  replyFormErrors,
  replyValue,
  SelectField,
  sendOrKeep,
  SubmitButton,
  TextareaField,
  useIsPending,
} from '~/components/forms.tsx';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import type { action, loader } from './forward.server.ts';

export { action, loader } from './forward.server.ts';

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Forward #${data.ticket.number} · ${data.workspace.name} · Tend` : 'Forward · Tend' },
  { name: 'description', content: 'Forward a conversation or a message to someone outside the team.' },
];

/** With the network down, the page and what was typed stay as they are (forms.tsx). */
export const clientAction = ({ serverAction }: ClientActionFunctionArgs) => sendOrKeep(serverAction<typeof action>);

export default function Forward() {
  const { workspace, ticket, messages, chosen } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const result = actionData && 'result' in actionData ? actionData.result : undefined;
  const pending = useIsPending();
  const back = `/w/${workspace.slug}/tickets/${ticket.number}`;
  return (
    <section className="stack-lg hd-forward" aria-labelledby="forward-title">
      <div>
        <p className="eyebrow">
          <Link to={back}>
            #{ticket.number} {ticket.subject}
          </Link>
        </p>
        <h1 id="forward-title">Forward</h1>
        <p className="muted">
          The conversation’s public messages (the newest 20), or one message with its files, go by email with your note;
          internal notes stay here. The answer comes back here as an internal note; the customer sees neither.
        </p>
      </div>
      <Form method="post" className="card stack" noValidate>
        <SelectField
          id="message"
          name="message"
          label="What to forward"
          defaultValue={replyValue(result, 'message') ?? chosen}
        >
          <option value="">The whole conversation</option>
          {messages.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
            </option>
          ))}
        </SelectField>
        <ErrorList errors={isOffline(actionData) ? [errorMessage('offline')] : replyFormErrors(result, 'to', 'note')} />
        <Field
          label="To"
          hint="Someone outside the team, such as a supplier."
          errors={replyErrors(result, 'to')}
          inputProps={{
            id: 'to',
            name: 'to',
            type: 'email',
            autoComplete: 'email',
            required: true,
            defaultValue: replyValue(result, 'to'),
          }}
        />
        <TextareaField
          id="note"
          name="note"
          label="Note"
          hint="Optional. Markdown works."
          errors={replyErrors(result, 'note')}
          defaultValue={replyValue(result, 'note') ?? ''}
          rows={5}
        />
        <div className="hd-actions">
          <SubmitButton pending={pending}>Forward</SubmitButton>
          <Link to={back}>Cancel</Link>
        </div>
      </Form>
    </section>
  );
}
