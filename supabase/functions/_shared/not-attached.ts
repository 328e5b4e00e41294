// The files of a mailed message that Tend didn't take (docs/product.md §5, README "inbound-email"). The
// message keeps them named on its last line, `[Not attached: name (reason); …]`, for the team; what a
// customer reads (the portal, the emails quoting the thread) leaves that line out, and the requester sees
// a friendly note on their own messages instead. Plain TypeScript, no Deno or Node API.
import { FILE_REFUSALS, type FileRefusal } from './file-refusals.ts';

const PREFIX = '\n\n[Not attached: ';
const SHOWN = 10;

/** A mailed file not taken, and why. */
export interface RefusedFile {
  name: string;
  why: FileRefusal;
}

/** The line that ends a message with refused files ('' when none): the first 10 named, then a count. */
export function notAttachedLine(refused: RefusedFile[]): string {
  if (!refused.length) return '';
  const named = refused.slice(0, SHOWN).map((f) => `${f.name} (${FILE_REFUSALS[f.why]})`);
  const more = refused.length > SHOWN ? `; and ${refused.length - SHOWN} more` : '';
  return `${PREFIX}${named.join('; ')}${more}]`;
}

/** A message's text without its refused-files line, and what that line named ("name (reason)"; [] if none). */
export function splitNotAttached(body: string): { text: string; refused: string[] } {
  const at = body.lastIndexOf(PREFIX);
  if (at < 0 || !body.endsWith(']') || body.indexOf('\n', at + PREFIX.length) >= 0) return { text: body, refused: [] };
  return { text: body.slice(0, at), refused: body.slice(at + PREFIX.length, -1).split('; ') };
}

/** What the requester reads under their own message: "1 file was not attached: a.exe (file type not accepted)." */
export function notAttachedNote(refused: string[]): string | null {
  if (!refused.length) return null;
  const more = /^and (\d+) more$/.exec(refused.at(-1) ?? '');
  const count = refused.length - (more ? 1 : 0) + (more ? Number(more[1]) : 0);
  const files = count === 1 ? '1 file was' : `${count} files were`;
  return `${files} not attached: ${refused.join('; ')}. Add files to a reply here instead.`;
}
