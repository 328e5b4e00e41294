// What `npm run dev` shows of the stack's log: a line per email with its code, each crash and
// restart of a part of the stack, and what the functions, pg_net and pg_cron say. The rest
// (Postgres notices and the like) only with DEBUG.
const dim = (s: string) => `\x1b[2m${s}\x1b[0m`;
export const bold = (s: string) => `\x1b[1m${s}\x1b[0m`;

const LOUD = /^\[(mail|supervisor)\]/;
const SHOWN = /^\[(stack|functions|net|cron)\]/;

/** The terminal line for a stack log line, or null when it is not shown. */
export function devLine(line: string, debug = !!process.env.DEBUG): string | null {
  if (LOUD.test(line)) return bold(line);
  if (SHOWN.test(line)) return line;
  return debug ? dim(`[stack] ${line}`) : null;
}
