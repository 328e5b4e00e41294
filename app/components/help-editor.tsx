// The agents' article editor (docs/product.md#the-help-center-for-the-team): title, collection, Markdown body, an image
// to insert, and the buttons. Without JavaScript every button posts the form (Preview shows the article as
// rendered by the server, the text kept). With it, the preview follows the text (rendered by the server,
// …/help/preview), drafts save themselves a moment after typing stops, and the other members who have
// the article open show up (LiveEditors).
import { Form, useFetcher } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';
import { ARTICLE_BODY_MAX_LENGTH, ARTICLE_TITLE_MAX_LENGTH } from '~/lib/help/limits.ts';
import {
  ErrorList,
  Field,
  FieldFrame,
  type FormReply,
  replyErrors,
  replyFormErrors,
  replyValue,
  SubmitButton,
} from './forms.tsx';
import { useHydrated } from './form-controls.tsx';

export interface EditorArticle {
  id: number | null;
  title: string;
  body: string;
  status: 'draft' | 'published';
  collection_id: string | null;
  updated_at: string | null;
}

const AUTOSAVE_AFTER_MS = 1_500;
const PREVIEW_AFTER_MS = 400;

export function HelpEditor({
  slug,
  article,
  collections,
  isAdmin,
  reply,
  preview,
  confirmDelete,
}: {
  slug: string;
  article: EditorArticle;
  collections: { id: string; title: string }[];
  isAdmin: boolean;
  reply: FormReply | null;
  preview: string | null;
  confirmDelete: boolean;
}) {
  const hydrated = useHydrated();
  const formRef = useRef<HTMLFormElement>(null);
  const [seen, setSeen] = useState(article.updated_at ?? '');
  const [livePreview, setLivePreview] = useState<string | null>(null);
  const [saveState, setSaveState] = useState<'idle' | 'saving' | 'saved' | 'conflict' | 'offline'>('idle');
  const autosave = useFetcher<{ savedAt?: string | null }>();
  const timers = useRef<{ save?: ReturnType<typeof setTimeout>; preview?: ReturnType<typeof setTimeout> }>({});
  const canAutosave = article.id !== null && article.status === 'draft';

  // A save (the page's own, or an autosave) brings a newer updated_at: the next save starts from it.
  useEffect(() => setSeen(article.updated_at ?? ''), [article.updated_at]);
  useEffect(() => {
    if (autosave.state !== 'idle') return;
    const savedAt = autosave.data?.savedAt;
    if (savedAt) {
      setSeen(savedAt);
      setSaveState('saved');
    } else if (autosave.data) setSaveState('conflict');
  }, [autosave.state, autosave.data]);

  const onInput = () => {
    const form = formRef.current;
    if (!form) return;
    clearTimeout(timers.current.preview);
    timers.current.preview = setTimeout(async () => {
      const body = new URLSearchParams({ body: (form.elements.namedItem('body') as HTMLTextAreaElement).value });
      try {
        const res = await fetch(`/w/${slug}/help/preview`, { method: 'POST', body });
        if (res.ok) setLivePreview(((await res.json()) as { html: string }).html);
      } catch {
        // Offline: the last preview stays.
      }
    }, PREVIEW_AFTER_MS);
    if (!canAutosave) return;
    clearTimeout(timers.current.save);
    timers.current.save = setTimeout(() => {
      if (!navigator.onLine) return setSaveState('offline');
      const data = new FormData(form);
      data.delete('image');
      data.set('intent', 'autosave');
      setSaveState('saving');
      autosave.submit(data, { method: 'post' });
    }, AUTOSAVE_AFTER_MS);
  };
  useEffect(() => {
    const t = timers.current;
    return () => {
      clearTimeout(t.save);
      clearTimeout(t.preview);
    };
  }, []);

  const shown = livePreview ?? preview;
  const published = article.status === 'published';
  return (
    <div className="help-editor">
      <Form
        method="post"
        encType="multipart/form-data"
        className="card stack help-editor__form"
        noValidate
        ref={formRef}
        onInput={hydrated ? onInput : undefined}
        aria-label="Article"
      >
        <input type="hidden" name="seen" value={seen} />
        <Field
          label="Title"
          errors={replyErrors(reply, 'title')}
          inputProps={{
            id: 'article-title-field',
            name: 'title',
            required: true,
            maxLength: ARTICLE_TITLE_MAX_LENGTH,
            defaultValue: replyValue(reply, 'title') ?? article.title,
          }}
        />
        <FieldFrame id="article-collection" label="Collection" errors={replyErrors(reply, 'collection_id')}>
          {(aria) => (
            <select
              id="article-collection"
              name="collection_id"
              className="input"
              defaultValue={replyValue(reply, 'collection_id') ?? article.collection_id ?? ''}
              {...aria}
            >
              <option value="">No collection</option>
              {collections.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.title}
                </option>
              ))}
            </select>
          )}
        </FieldFrame>
        <FieldFrame
          id="article-body"
          label="Text"
          hint="Markdown: ## headings, **bold**, _italic_, [links](https://…), - lists, `code`, ``` blocks, tables."
          errors={replyErrors(reply, 'body')}
        >
          {(aria) => (
            <textarea
              // A new text from the server (an image inserted) replaces the field's.
              key={replyValue(reply, 'body') ?? article.body}
              id="article-body"
              name="body"
              className="input help-editor__body"
              rows={18}
              maxLength={ARTICLE_BODY_MAX_LENGTH}
              defaultValue={replyValue(reply, 'body') ?? article.body}
              {...aria}
            />
          )}
        </FieldFrame>
        <FieldFrame
          id="article-image"
          label="Image"
          hint="PNG, JPEG, GIF or WebP, up to 10 MB: added at the end of the article."
          errors={replyErrors(reply, 'image')}
        >
          {(aria) => (
            <div className="help-editor__image">
              <input
                // Emptied once its image is in the text (a new text from the server).
                key={replyValue(reply, 'body') ?? article.body}
                id="article-image"
                name="image"
                type="file"
                accept=".png,.jpg,.jpeg,.gif,.webp"
                {...aria}
              />
              <button type="submit" name="intent" value="upload" className="button button--secondary" formNoValidate>
                Insert image
              </button>
            </div>
          )}
        </FieldFrame>
        <ErrorList errors={replyFormErrors(reply, 'collection_id')} />
        <div className="hd-actions help-editor__actions">
          <button type="submit" name="intent" value="preview" className="button button--secondary">
            Preview
          </button>
          <SubmitButton name="intent" value="save" className="button button--secondary">
            {published ? 'Save' : 'Save draft'}
          </SubmitButton>
          <SubmitButton name="intent" value={published ? 'unpublish' : 'publish'} className="button">
            {published ? 'Unpublish' : 'Publish'}
          </SubmitButton>
          {canAutosave && hydrated ? (
            <span className="muted small" role="status" data-testid="autosave">
              {saveState === 'saving'
                ? 'Saving…'
                : saveState === 'saved'
                  ? 'Draft saved'
                  : saveState === 'conflict'
                    ? 'Not saved: someone else saved this article. Save to see what happens.'
                    : saveState === 'offline'
                      ? 'Offline: your text is kept here; it saves when you are back.'
                      : 'Drafts save as you type'}
            </span>
          ) : null}
        </div>
      </Form>
      <section className="help-editor__preview stack" aria-labelledby="preview-title">
        <h2 id="preview-title">Preview</h2>
        {shown !== null ? (
          // Rendered and sanitised on the server (app/lib/markdown/render.server.ts).
          // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised HTML from the server
          <div className="help-preview help-body" data-testid="preview" dangerouslySetInnerHTML={{ __html: shown }} />
        ) : (
          <p className="muted">
            {hydrated ? 'The preview follows your text.' : 'Press "Preview" to see the article as readers will.'}
          </p>
        )}
      </section>
      {isAdmin && article.id !== null ? (
        <Form method="post" className="card stack help-editor__delete" aria-label="Delete article">
          {confirmDelete ? (
            <>
              <p role="alert">Delete this article for good? Its address will stop working.</p>
              <p className="hd-actions">
                <button type="submit" name="intent" value="delete_confirmed" className="button button--danger">
                  Yes, delete it
                </button>
                <a href={`/w/${slug}/help/${article.id}`} className="button button--secondary">
                  Cancel
                </a>
              </p>
            </>
          ) : (
            <p>
              <button type="submit" name="intent" value="delete" className="button button--ghost">
                Delete article…
              </button>
            </p>
          )}
        </Form>
      ) : null}
    </div>
  );
}
