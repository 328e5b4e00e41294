// One line per event on stdout/stderr, `key=value` after a short message, so a request id from
// an error page can be found with grep.
type Fields = Record<string, string | number | boolean | null | undefined>;

function format(level: string, msg: string, fields: Fields): string {
  const parts = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' && /\s/.test(v) ? JSON.stringify(v) : v}`);
  return [`[tend] ${new Date().toISOString()} ${level} ${msg}`, ...parts].join(' ');
}

export const log = {
  info: (msg: string, fields: Fields = {}) => console.log(format('info', msg, fields)),
  warn: (msg: string, fields: Fields = {}) => console.warn(format('warn', msg, fields)),
  error: (msg: string, fields: Fields = {}, error?: unknown) => {
    console.error(format('error', msg, fields));
    if (error instanceof Error && error.stack) console.error(error.stack);
    else if (error !== undefined) console.error(error);
  },
};
