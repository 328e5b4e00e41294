// The new part of an email reply: quoted history and the signature cut off, as mail clients write
// them (Gmail/Apple "On … wrote:", Outlook's "-----Original Message-----" and From:/Sent: block,
// "> " lines, the "-- " signature delimiter, "Sent from my …"). Plain TypeScript: the unit tests run it.

const CUTS: RegExp[] = [
  /^On\b.{0,300}\bwrote:\s*$/i, // Gmail, Apple Mail (may wrap: handled below)
  /^-{2,}\s*Original Message\s*-{2,}\s*$/i,
  /^-{2,}\s*Forwarded message\s*-{2,}\s*$/i,
  /^_{10,}\s*$/, // Outlook's rule above the quoted header
  /^From:\s.+$/i, // Outlook's quoted header block (From:, Sent:, To:, Subject:)
  /^-- ?$/, // signature delimiter
  /^Sent from my\b/i,
  /^Get Outlook for\b/i,
];

export function stripQuoted(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trimEnd();
    // "On Tue, 1 Jan 2030 at 10:00, Someone <a@b>" + newline + "wrote:" (clients wrap at ~78 columns).
    const wrapped = /^On\b/i.test(line) && /^.{0,200}wrote:\s*$/i.test(lines[i + 1] ?? '');
    if (wrapped || CUTS.some((re) => re.test(line)) || (line.startsWith('>') && isQuoteFromHere(lines, i))) {
      end = i;
      break;
    }
  }
  return lines
    .slice(0, end)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A "> " line starts the quoted tail when every non-blank line after it is quoted too. */
function isQuoteFromHere(lines: string[], from: number): boolean {
  return lines.slice(from).every((l) => !l.trim() || l.trimStart().startsWith('>'));
}

/** Text of an HTML body, for mail that has no plain part. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<blockquote[\s\S]*$/i, '') // quoted history in HTML mail
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|h\d)>/gi, '\n\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
