// The composer's file field with JavaScript (attachments.tsx loads this after the page): the limits
// checked on choosing, files dropped on or pasted into the form joining the input, and a post with a file
// the message can't take stopped with the same message the server gives.
import { errorMessage } from '~/lib/errors/catalogue.ts';
// The rules from their shared module, as the catalogue's constants come: no chunk of its own for this file.
import { attachmentTypeOf } from '../../supabase/functions/_shared/attachment-rules.ts';
import { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE } from '../../supabase/functions/_shared/limits.ts';

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

/** Listens on the file input `el` and its form; returns what stops listening. */
export function enhanceFileField(
  el: HTMLInputElement,
  form: HTMLFormElement,
  onChecked: (errors: string[]) => void,
  onDragging: (dragging: boolean) => void,
): () => void {
  const check = () => onChecked(checkFiles(Array.from(el.files ?? [])));
  // Dropped or pasted files are added to those already chosen.
  const add = (more: FileList | File[]) => {
    const all = new DataTransfer();
    for (const f of Array.from(el.files ?? [])) all.items.add(f);
    for (const f of Array.from(more)) all.items.add(f);
    el.files = all.files;
    check();
    // For whoever writes them into the message (the ticket composer's rich-composer.ts: images inline).
    el.dispatchEvent(new CustomEvent('tend:files', { bubbles: true, detail: Array.from(more) }));
  };
  const onDragOver = (e: DragEvent) => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    onDragging(true);
  };
  const onDragLeave = (e: DragEvent) => {
    if (e.target === form || !form.contains(e.relatedTarget as Node | null)) onDragging(false);
  };
  const onDrop = (e: DragEvent) => {
    if (!e.dataTransfer?.files.length) return;
    e.preventDefault();
    onDragging(false);
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
    onChecked(problems);
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
}
