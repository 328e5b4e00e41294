// The composer's file field with JavaScript (attachments.tsx loads this after the page): the limits
// checked on choosing, files dropped on or pasted into the form joining the input, the chosen files
// listed under it (each with its size, why it can't be sent, and "Remove"), and a post with a file the
// message can't take stopped with the same message the server gives.
import { errorMessage } from '~/lib/errors/catalogue.ts';
// The rules from their shared module, as the catalogue's constants come: no chunk of its own for this file.
import { attachmentTypeOf } from '../../supabase/functions/_shared/attachment-rules.ts';
import { formatSize } from '../../supabase/functions/_shared/email-files.ts';
import { FILE_REFUSALS, type FileRefusal } from '../../supabase/functions/_shared/file-refusals.ts';
import { ATTACHMENT_MAX_BYTES, ATTACHMENTS_PER_MESSAGE } from '../../supabase/functions/_shared/limits.ts';

/** Why the server would not take the `index`th file chosen (as it reads them, in order), or null. */
export function refusalOf(file: File, index: number): FileRefusal | null {
  if (index >= ATTACHMENTS_PER_MESSAGE) return 'count';
  if (!attachmentTypeOf(file.name)) return 'type';
  return file.size > ATTACHMENT_MAX_BYTES ? 'size' : null;
}

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

/**
 * Listens on the file input `el` and its form; returns what stops listening. `onChecked` gets the
 * catalogue's messages for the files chosen ([] when they can be sent), and null once a post with them
 * goes: the server's answer to it is the news.
 */
export function enhanceFileField(
  el: HTMLInputElement,
  form: HTMLFormElement,
  onChecked: (errors: string[] | null) => void,
  onDragging: (dragging: boolean) => void,
): () => void {
  // The chosen files, under the field (outside what React renders: the page's own code stays as it is).
  const list = document.createElement('ul');
  list.className = 'hd-chosen';
  list.setAttribute('aria-label', 'Chosen files');
  (el.closest('.field') ?? el).after(list);
  const setFiles = (files: File[]) => {
    const all = new DataTransfer();
    for (const f of files) all.items.add(f);
    el.files = all.files;
    check();
  };
  const render = () => {
    const files = Array.from(el.files ?? []);
    list.replaceChildren(...files.map((file, i) => chosenFile(file, i, () => remove(i))));
    list.hidden = !files.length;
  };
  const check = () => {
    onChecked(checkFiles(Array.from(el.files ?? [])));
    render();
  };
  // "Remove": the others stay chosen; the focus moves to the next file's button, or the input.
  const remove = (index: number) => {
    setFiles(Array.from(el.files ?? []).filter((_, i) => i !== index));
    const next = list.querySelectorAll('button')[Math.min(index, list.children.length - 1)];
    (next ?? el).focus();
  };
  // Dropped or pasted files are added to those already chosen.
  const add = (more: FileList | File[]) => {
    setFiles([...Array.from(el.files ?? []), ...Array.from(more)]);
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
    if (!problems.length) return onChecked(null);
    e.preventDefault();
    e.stopImmediatePropagation();
    onChecked(problems);
    el.focus();
  };
  // Files chosen before this loaded are listed; the server's messages stay until they change.
  render();
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
    list.remove();
  };
}

/** One chosen file: its name, size, why it can't be sent (if so) and "Remove". */
function chosenFile(file: File, index: number, remove: () => void): HTMLLIElement {
  const item = document.createElement('li');
  const refusal = refusalOf(file, index);
  item.className = refusal ? 'hd-chosen__file hd-chosen__file--refused' : 'hd-chosen__file';
  item.dataset.testid = 'chosen-file';
  const name = document.createElement('bdi');
  name.className = 'hd-chosen__name';
  name.textContent = file.name;
  const size = document.createElement('span');
  size.className = 'muted small';
  size.textContent = formatSize(file.size);
  item.append(name, ' ', size);
  if (refusal) {
    const why = document.createElement('span');
    why.className = 'hd-chosen__why';
    why.textContent = `Can't be sent: ${FILE_REFUSALS[refusal]}`;
    item.append(' ', why);
  }
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button button--ghost hd-chosen__remove';
  button.textContent = 'Remove';
  const label = document.createElement('span');
  label.className = 'visually-hidden';
  label.textContent = ` ${file.name}`;
  button.append(label);
  button.addEventListener('click', remove);
  item.append(' ', button);
  return item;
}
