// The ticket page's composer: a reply to the customer or an internal note, its files and a canned
// reply, "Send and set status". Note mode (the "Internal note" radio) restyles and relabels it in CSS
// (:has), so it shows without JavaScript too. A refused draft (`sent`: the action's answer to this
// form) comes back as it was typed, with the names of the files to choose again. The draft is also
// kept in this browser until it is sent (MessageField's `keep`). The message is Markdown: with
// JavaScript a formatting toolbar, Ctrl/Cmd+B, I, K and pasted images written into it (rich-composer.ts,
// loaded on the composer's first focus); without, the same Markdown is typed.
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useState } from 'react';
import { AttachmentsField } from '~/components/attachments.tsx';
import { CannedReplyPicker } from '~/components/canned-reply-picker.tsx';
import {
  ErrorList,
  isOffline,
  type FormReply,
  replyErrors,
  replyFormErrors,
  replyValue,
  SubmitButton,
  SelectField,
} from '~/components/forms.tsx';
import { MessageField } from '~/components/message-field.tsx';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import { FILES_FIELD } from '~/lib/helpdesk/attachments.ts';
import { AGENT_STATUSES, STATUS_LABELS } from '~/lib/helpdesk/ticket-terms.ts';
import type { action, loader } from './ticket.server.ts';

// The toolbar's buttons by name, which is also what rich-composer.ts does (data-md); what they show is
// in app.css, and rich-composer.ts adds the keys and the one tab stop when it loads (the page's budget).
const TOOLS = ['Bold', 'Italic', 'Link', 'Code', 'Quote', 'Bulleted list', 'Numbered list'];

/** Loads the formatting (once) on the composer's first focus: not part of the page's first JavaScript. */
function wake({ currentTarget: form }: { currentTarget: HTMLFormElement }) {
  if (form.dataset.rich) return;
  form.dataset.rich = 'loading';
  // (Failed to load: the box stays plain until the page is loaded again.)
  import('./rich-composer.ts').then((m) => m.enhance(form));
}

export function Composer({ result, sent }: { result: FormReply | undefined; sent: FormReply | undefined }) {
  const { workspace, ticket, me, members, signature, mine, lastMessageId, clientKey, cannedReplies } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // The draft starts empty after my own message is sent (`mine`: how many I wrote here), and only
  // then: live updates bring others'.
  const status = ticket.status;
  // The traffic cop's "last seen" (post_message refuses a send after messages the writer hadn't
  // seen): the newest message when the draft was begun. A message a live update brings in while
  // the agent writes doesn't count as read, so the send is held back beside it as without
  // JavaScript; once refused (the refusal names the `seen` it was sent with), or with the box empty,
  // the page's newest counts.
  const [seen, setSeen] = useState(lastMessageId);
  const refused = actionData && 'changedAfter' in actionData ? actionData.changedAfter : undefined;
  useEffect(() => {
    const draft = document.getElementById('body') as HTMLTextAreaElement | null;
    if (seen === refused || !draft?.value.trim()) setSeen(lastMessageId);
  }, [lastMessageId, refused, seen]);
  // The composer is drawn by the server: a field focused before the page's JavaScript started gets
  // its focus handlers now (the formatting's and the canned-reply picker's loading).
  useEffect(() => void document.activeElement?.dispatchEvent(new FocusEvent('focusin', { bubbles: true })), []);
  return (
    <Form method="post" className="card stack hd-composer" encType="multipart/form-data" noValidate onFocus={wake}>
      <input type="hidden" name="last_seen_message_id" value={seen} />
      <input type="hidden" name="client_key" value={clientKey} />
      <ErrorList
        errors={isOffline(actionData) ? [errorMessage('offline')] : replyFormErrors(result, 'kind', 'set_status')}
      />
      <fieldset className="hd-kind">
        <legend>Type</legend>
        <label>
          <input
            type="radio"
            name="kind"
            value="reply"
            defaultChecked={(replyValue(sent, 'kind') ?? 'reply') === 'reply'}
          />{' '}
          Reply to customer
        </label>
        <label>
          <input type="radio" name="kind" value="note" defaultChecked={replyValue(sent, 'kind') === 'note'} /> Internal
          note
        </label>
      </fieldset>
      <p id="note-banner" className="hd-note-banner hd-when-note">
        Internal note — only agents see this
      </p>
      <CannedReplyPicker
        replies={cannedReplies}
        src={`/w/${workspace.slug}/tickets/${ticket.number}/canned-replies`}
        textareaId="body"
        errors={replyErrors(result, 'canned_reply')}
      />
      <div role="toolbar" aria-label="Formatting" className="hd-format-bar hd-with-js">
        {TOOLS.map((name) => (
          <button key={name} type="button" className="hd-tool" data-md={name} aria-label={name} />
        ))}
      </div>
      <MessageField
        id="body"
        name="body"
        label="Message"
        errors={replyErrors(result, 'body')}
        // A new draft starts with my signature under it, to keep, change or remove for this message.
        defaultValue={replyValue(sent, 'body') ?? (signature ? `\n\n${signature}` : '')}
        describedBy="note-banner"
        key={`draft-${mine}`}
        keep={{ key: ticket.id, sent: mine }}
        required
        rows={6}
        onKeyDown={({ key, currentTarget: area }) => {
          // "@" offers the members to mention in a note (mention-picker.ts, loaded the first time).
          if (key === '@')
            void import('~/components/mention-picker.ts').then(({ attachMentions }) =>
              attachMentions(
                area,
                members.filter((m) => m.user_id !== me),
                () => (area.form?.elements.namedItem('kind') as RadioNodeList | null)?.value === 'note',
              ),
            );
        }}
      />
      <AttachmentsField
        errors={replyErrors(sent, FILES_FIELD)}
        keptNames={sent && actionData && 'fileNames' in actionData ? actionData.fileNames : undefined}
        key={`files-${mine}`}
      />
      <div className="hd-actions">
        <SelectField
          id="set_status"
          name="set_status"
          label="Send and set status"
          defaultValue={replyValue(sent, 'set_status') ?? 'keep'}
        >
          <option value="keep">Keep {STATUS_LABELS[status].toLowerCase()}</option>
          {AGENT_STATUSES.filter((s) => s !== status).map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </SelectField>
        <SubmitButton name="intent" value="send">
          <span className="hd-when-reply">Send</span>
          <span className="hd-when-note">Add internal note</span>
        </SubmitButton>
      </div>
    </Form>
  );
}
