// A ticket's conversation, oldest first: a window of it, with "Show earlier messages" above when
// there are more (thread-window.ts; a link, so it works without JavaScript). Internal notes (agents only; RLS never sends them to a
// requester) are set apart with a label and a tinted background.
import { Link } from '@remix-run/react';
import { type AttachmentView, formatSize, isImageType } from '~/lib/helpdesk/attachments.ts';
import type { Tables } from '~/lib/supabase/database.types.ts';
import { html, type Markup } from '~/lib/markup.ts';

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

/** A file's icon by its type (an image shows itself). */
export const FILE_ICONS: [RegExp, string][] = [
  [/pdf$/, 'PDF'],
  [/zip$/, 'ZIP'],
  [/wordprocessingml/, 'DOC'],
  [/spreadsheetml|csv$/, 'XLS'],
  [/^text\//, 'TXT'],
];

/** A message's files (name, size, an icon or an image's thumbnail) as markup; `href(id)` is the download route of the page. */
export function attachmentListHtml(files: AttachmentView[], href: (id: string) => string): Markup | null {
  if (!files.length) return null;
  return html`<ul class="hd-files" aria-label="Attachments">${files.map(
    (f) =>
      html`<li class="hd-file"><a href="${href(f.id)}" class="hd-file__link" data-testid="attachment">${
        isImageType(f.mime_type)
          ? html`<img class="hd-file__thumb" src="${href(f.id)}" alt="" width="40" height="40" loading="lazy"/>`
          : html`<span class="hd-file__icon" aria-hidden="true">${FILE_ICONS.find(([re]) => re.test(f.mime_type))?.[1] ?? 'FILE'}</span>`
      }<span class="hd-file__name">${f.file_name}</span></a> <span class="hd-file__size muted small">${formatSize(f.size)}</span></li>`,
  )}</ul>`;
}

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
          // The message's parts as markup (docs/decisions/115-rows-as-markup.md): inert, one string for React.
          return (
            <li
              key={m.id}
              id={`message-${m.id}`}
              className={`hd-message${m.kind === 'note' ? ' hd-message--note' : ''}${isNew ? ' hd-message--new' : ''}`}
              data-kind={m.kind}
              data-message-id={m.id}
              // biome-ignore lint/security/noDangerouslySetInnerHtml: the body is the one sanitiser's output (supabase/functions/_shared/markdown.ts), every other value escaped (app/lib/markup.ts)
              dangerouslySetInnerHTML={html`<div class="hd-message__meta"><strong><bdi>${m.author}</bdi></strong>${m.kind === 'note' ? html`<span class="hd-note-label">Internal note</span>` : null}${isNew ? html`<span class="hd-new-label">New</span>` : null}<time dateTime="${m.created_at}">${m.when}</time></div><div class="hd-message__body">${{ __html: m.html }}</div>${attachmentListHtml(m.attachments ?? [], href)}${m.notice ? html`<p class="hd-message__notice">${m.notice}</p>` : null}${articleFrom && m.kind === 'reply' ? html`<a href="${articleFrom}${m.id}">Create article from this reply</a>` : null}${m.split ? html`<a href="${m.split}">Split into a new ticket</a>` : null}`}
            />
          );
        })}
      </ol>
    </>
  );
}
