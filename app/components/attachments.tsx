// Files on messages: the composer's field (a plain file input without JavaScript; with it, the same
// limits checked on choosing, and files dropped on or pasted into the composer join the input). The list
// under each message is the thread's (helpdesk-thread.tsx).
import { useEffect, useRef, useState } from 'react';
import {
  ATTACHMENT_ACCEPT,
  ATTACHMENT_MAX_BYTES,
  ATTACHMENTS_PER_MESSAGE,
  FILES_FIELD,
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
