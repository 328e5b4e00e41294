// A message box's text, kept in this browser until it is sent (docs/product.md §4: a dropped
// network, a closed tab or a reload never costs typed text). Loaded on demand by MessageField (the
// ticket page's JavaScript budget, docs/decisions/006-javascript-budget.md); imports nothing.
//
// The draft is stored with how many of the writer's own messages the thread held when it was typed:
// once the page shows more, it was sent (even if the answer to the send never arrived) and is dropped.

interface Stored {
  text: string;
  sent: number;
}

const PREFIX = 'tend:draft:';

function read(key: string): Stored | null {
  try {
    return JSON.parse(localStorage.getItem(PREFIX + key) ?? 'null');
  } catch {
    return null;
  }
}

/**
 * Fills an empty `field` with the draft kept under `key` (unless it was sent since), then keeps what
 * is typed there. Returns the way to stop.
 */
export function keepDraft(field: HTMLTextAreaElement, key: string, sent: number): () => void {
  const stored = read(key);
  if (stored && stored.sent === sent && stored.text && !field.value) {
    field.value = stored.text;
    // So the box's own listeners (the counter) see it.
    field.dispatchEvent(new Event('input', { bubbles: true }));
  } else if (stored && stored.sent !== sent) {
    localStorage.removeItem(PREFIX + key);
  }
  const save = () => {
    try {
      if (field.value.trim()) localStorage.setItem(PREFIX + key, JSON.stringify({ text: field.value, sent }));
      else localStorage.removeItem(PREFIX + key);
    } catch {
      // Storage full or refused (private mode): the text is still in the box.
    }
  };
  // Text typed before this module came is kept too.
  if (field.value.trim() && field.value !== stored?.text) save();
  field.addEventListener('input', save);
  return () => field.removeEventListener('input', save);
}
