// A ticket's conversation, oldest first: a window of it, with "Show earlier messages" above when
// there are more (thread-window.ts; a link, so it works without JavaScript). Internal notes (agents only; RLS never sends them to a
// requester) are set apart with a label and a tinted background.
import { Link } from '@remix-run/react';
import type { AttachmentView } from '~/lib/helpdesk/attachments.ts';
import type { Tables } from '~/lib/supabase/database.types.ts';
import { AttachmentList } from './attachments.tsx';

/** A message as the thread shows it: its row, its body as sanitised HTML, the author's name, its files, a note about it for the reader. */
export type ThreadMessage = Pick<Tables<'messages'>, 'id' | 'kind' | 'created_at' | 'author_id'> & {
  author: string;
  /** The body rendered on the server (app/lib/helpdesk/message-body.server.ts). */
  html: string;
  attachments?: AttachmentView[];
  notice?: string | null;
  /** When it was written, as the loader says it in the reader's time zone (formatDateIn). */
  when: string;
  /** On the agent's page, a requester's message: its "Split into a new ticket" confirmation. */
  split?: string;
};

/**
 * `earlier`: the link to the earlier messages, if any. `filesPath`: the page's file route, `…/files/` (the attachment id follows). `articleFrom`: on the
 * agent's page, the new-article address a reply's id completes ("Create article from this reply").
 */
export function Thread({
  messages,
  earlier,
  highlightAfter,
  filesPath,
  articleFrom,
}: {
  messages: ThreadMessage[];
  earlier?: string | null;
  highlightAfter?: string | null;
  filesPath: string;
  articleFrom?: string;
}) {
  const href = (id: string) => `${filesPath}${id}`;
  let passed = false;
  return (
    <>
      {earlier ? (
        <p className="hd-thread__earlier">
          <Link to={earlier}>Show earlier messages</Link>
        </p>
      ) : null}
      <ol className="hd-thread" aria-label="Conversation">
        {messages.map((m) => {
          const isNew = !!highlightAfter && passed;
          if (m.id === highlightAfter) passed = true;
          return (
            <li
              key={m.id}
              id={`message-${m.id}`}
              className={`hd-message${m.kind === 'note' ? ' hd-message--note' : ''}${isNew ? ' hd-message--new' : ''}`}
              data-kind={m.kind}
              data-message-id={m.id}
            >
              <div className="hd-message__meta">
                <strong>
                  <bdi>{m.author}</bdi>
                </strong>
                {m.kind === 'note' ? <span className="hd-note-label">Internal note</span> : null}
                {isNew ? <span className="hd-new-label">New</span> : null}
                <time dateTime={m.created_at}>{m.when}</time>
              </div>
              <div
                className="hd-message__body"
                // The one sanitiser's output (supabase/functions/_shared/markdown.ts).
                // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised on the server
                dangerouslySetInnerHTML={{ __html: m.html }}
              />
              <AttachmentList files={m.attachments ?? []} href={href} />
              {m.notice ? <p className="hd-message__notice">{m.notice}</p> : null}
              {articleFrom && m.kind === 'reply' ? (
                <a href={`${articleFrom}${m.id}`}>Create article from this reply</a>
              ) : null}
              {m.split ? <a href={m.split}>Split into a new ticket</a> : null}
            </li>
          );
        })}
      </ol>
    </>
  );
}
