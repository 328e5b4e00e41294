// A message's body as HTML for an email: escaped text in paragraphs, lines kept, with the inline styles
// email clients need (they drop <style> blocks unevenly). Plain TypeScript: the app and notify run it.
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Plain text as HTML paragraphs (a blank line between them), each line break kept. */
export function textToHtml(text: string): string {
  return text
    .trim()
    .split(/\n{2,}/)
    .map((p) => `<p style="margin:0 0 12px">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
}
