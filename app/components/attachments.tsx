// Files on messages: the composer's field (a plain file input without JavaScript; with it, the same
// limits checked on choosing, and files dropped on or pasted into the composer join the input) and
// the list under each message (name, size, an icon or an image's thumbnail).
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '~/lib/errors/catalogue.ts';
import {
  ATTACHMENT_ACCEPT,
  ATTACHMENT_MAX_BYTES,
  ATTACHMENTS_PER_MESSAGE,
  type AttachmentView,
  attachmentTypeOf,
  FILES_FIELD,
  formatSize,
  isImageType,
} from '~/lib/helpdesk/attachments.ts';
import { FieldFrame } from './forms.tsx';
import { useHydrated } from './form-controls.tsx';

/** The catalogue's messages for files a message can't take (the action says the same). */
export function checkFiles(files: readonly File[]): string[] {
  const errors: string[] = [];
  if (files.length > ATTACHMENTS_PER_MESSAGE) errors.push(errorMessage('too_many_attachments'));
  for (const f of files) {
    if (!attachmentTypeOf(f.name)) errors.push(errorMessage('attachment_type', { fileName: f.name }));
    else if (f.size > ATTACHMENT_MAX_BYTES) errors.push(errorMessage('attachment_too_large', { fileName: f.name }));
  }
  return errors;
}

export function AttachmentsField({ errors, keptNames }: { errors?: string[]; keptNames?: string[] }) {
  const input = useRef<HTMLInputElement>(null);
  const [checked, setChecked] = useState<string[] | null>(null);
  const [dragging, setDragging] = useState(false);
  const shown = checked ?? errors;
  const hydrated = useHydrated();

  useEffect(() => {
    const el = input.current;
    const form = el?.form;
    if (!el || !form) return;
    const check = () => setChecked(checkFiles(Array.from(el.files ?? [])));
    // Dropped or pasted files are added to those already chosen.
    const add = (more: FileList | File[]) => {
      const all = new DataTransfer();
      for (const f of Array.from(el.files ?? [])) all.items.add(f);
      for (const f of Array.from(more)) all.items.add(f);
      el.files = all.files;
      check();
    };
    const onDragOver = (e: DragEvent) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      setDragging(true);
    };
    const onDragLeave = (e: DragEvent) => {
      if (e.target === form || !form.contains(e.relatedTarget as Node | null)) setDragging(false);
    };
    const onDrop = (e: DragEvent) => {
      if (!e.dataTransfer?.files.length) return;
      e.preventDefault();
      setDragging(false);
      add(e.dataTransfer.files);
    };
    const onPaste = (e: ClipboardEvent) => {
      const files = Array.from(e.clipboardData?.files ?? []);
      if (!files.length) return;
      e.preventDefault();
      // A pasted screenshot is "image.png" whatever it shows: name it by the time.
      const stamp = new Date().toISOString().slice(0, 19).replace(/[T:]/g, '-');
      add(files.map((f, i) => (f.name === 'image.png' ? new File([f], `screenshot-${stamp}-${i + 1}.png`, f) : f)));
    };
    // A file the message can't take stops the post here, with the same message the server gives.
    const onSubmit = (e: SubmitEvent) => {
      // A button that sends no message ("Mark as solved") leaves the files alone.
      if ((e.submitter as HTMLButtonElement | null)?.formNoValidate) return;
      const problems = checkFiles(Array.from(el.files ?? []));
      if (!problems.length) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      setChecked(problems);
      el.focus();
    };
    el.addEventListener('change', check);
    form.addEventListener('dragover', onDragOver);
    form.addEventListener('dragleave', onDragLeave);
    form.addEventListener('drop', onDrop);
    form.addEventListener('paste', onPaste);
    form.addEventListener('submit', onSubmit, { capture: true });
    return () => {
      el.removeEventListener('change', check);
      form.removeEventListener('dragover', onDragOver);
      form.removeEventListener('dragleave', onDragLeave);
      form.removeEventListener('drop', onDrop);
      form.removeEventListener('paste', onPaste);
      form.removeEventListener('submit', onSubmit, { capture: true });
    };
  }, []);

  const hint = (
    <>
      Up to {ATTACHMENTS_PER_MESSAGE} files, {Math.round(ATTACHMENT_MAX_BYTES / (1024 * 1024))} MB each: images, PDF,
      text, CSV, ZIP, Word and Excel. {hydrated ? 'Drop files here or paste a screenshot.' : null}
      {keptNames?.length ? (
        <span className="hd-files__kept" data-testid="kept-files">
          {' '}
          Not sent, choose again: {keptNames.join(', ')}
        </span>
      ) : null}
    </>
  );
  return (
    <div className={`hd-files-field${dragging ? ' hd-files-field--drop' : ''}`}>
      <FieldFrame id={FILES_FIELD} label="Attachments" hint={hint} errors={shown?.length ? shown : undefined}>
        {(aria) => (
          <input
            ref={input}
            id={FILES_FIELD}
            name={FILES_FIELD}
            type="file"
            multiple
            accept={ATTACHMENT_ACCEPT}
            {...aria}
          />
        )}
      </FieldFrame>
    </div>
  );
}

const ICONS: [RegExp, string][] = [
  [/pdf$/, 'PDF'],
  [/zip$/, 'ZIP'],
  [/wordprocessingml/, 'DOC'],
  [/spreadsheetml|csv$/, 'XLS'],
  [/^text\//, 'TXT'],
];

/** A message's files; `href(id)` is the download route of the page. */
export function AttachmentList({ files, href }: { files: AttachmentView[]; href: (id: string) => string }) {
  if (!files.length) return null;
  return (
    <ul className="hd-files" aria-label="Attachments">
      {files.map((f) => {
        const image = isImageType(f.mime_type);
        return (
          <li key={f.id} className="hd-file">
            <a href={href(f.id)} className="hd-file__link" data-testid="attachment">
              {image ? (
                <img className="hd-file__thumb" src={href(f.id)} alt="" width={40} height={40} loading="lazy" />
              ) : (
                <span className="hd-file__icon" aria-hidden="true">
                  {ICONS.find(([re]) => re.test(f.mime_type))?.[1] ?? 'FILE'}
                </span>
              )}
              <span className="hd-file__name">{f.file_name}</span>
            </a>{' '}
            <span className="hd-file__size muted small">{formatSize(f.size)}</span>
          </li>
        );
      })}
    </ul>
  );
}
