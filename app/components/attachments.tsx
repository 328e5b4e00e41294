// Files on messages: the composer's field (a plain file input without JavaScript; with it, the same
// limits checked on choosing, and files dropped on or pasted into the composer join the input) and
// the list under each message (name, size, an icon or an image's thumbnail).
import { useEffect, useRef, useState } from 'react';
import {
  ATTACHMENT_ACCEPT,
  ATTACHMENT_MAX_BYTES,
  ATTACHMENTS_PER_MESSAGE,
  type AttachmentView,
  FILES_FIELD,
  formatSize,
  isImageType,
} from '~/lib/helpdesk/attachments.ts';
import { FieldFrame } from './forms.tsx';

export function AttachmentsField({ errors, keptNames }: { errors?: string[]; keptNames?: string[] }) {
  const input = useRef<HTMLInputElement>(null);
  const [checked, setChecked] = useState<string[] | null>(null);
  const [dragging, setDragging] = useState(false);
  // Drop, paste and the checks on choosing come with their module, loaded after the page (the pages'
  // first JavaScript stays within its budget, docs/decisions/006-javascript-budget.md).
  const [enhanced, setEnhanced] = useState(false);
  const shown = checked ?? errors;

  useEffect(() => {
    const el = input.current;
    const form = el?.form;
    if (!el || !form) return;
    let stop: (() => void) | undefined;
    let gone = false;
    void import('./attachments-enhance.ts').then((m) => {
      if (gone) return;
      stop = m.enhanceFileField(el, form, setChecked, setDragging);
      setEnhanced(true);
    });
    return () => {
      gone = true;
      stop?.();
    };
  }, []);

  const hint = (
    <>
      Up to {ATTACHMENTS_PER_MESSAGE} files, {Math.round(ATTACHMENT_MAX_BYTES / (1024 * 1024))} MB each: images, PDF,
      text, CSV, ZIP, Word and Excel. {enhanced ? 'Drop files here or paste a screenshot.' : null}
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
