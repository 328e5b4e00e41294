// "Tend can't reach its database right now. Your text is kept; try again." (docs/product.md §8): when a
// POST ends on the backend_unavailable page, the page gives the text back in a form that sends it
// again (components/error-boundary.tsx). The text is what the action read (readFormData remembers
// it), or, when the backend failed before the action read its form, the body read then.
import { FORM_MAX_BYTES_KEPT } from '../constants.ts';

/** The text fields of a form, in order; files are never kept (they must be attached again). */
export type KeptForm = [name: string, value: string][];

const kept = new WeakMap<Request, KeptForm>();

export function rememberForm(request: Request, form: FormData): void {
  const fields: KeptForm = [];
  for (const [name, value] of form) if (typeof value === 'string') fields.push([name, value]);
  kept.set(request, fields);
}

/** The POSTed text of this request: remembered, or read now if nobody has read the body yet. */
export async function keptForm(request: Request): Promise<KeptForm | null> {
  if (request.method !== 'POST') return null;
  const known = kept.get(request);
  if (known) return known;
  if (request.bodyUsed || !request.body) return null;
  const length = Number(request.headers.get('Content-Length') ?? Number.NaN);
  if (!(length <= FORM_MAX_BYTES_KEPT)) return null; // unknown or large (files): not worth holding
  try {
    rememberForm(request, await request.formData());
  } catch {
    return null;
  }
  return kept.get(request) ?? null;
}
