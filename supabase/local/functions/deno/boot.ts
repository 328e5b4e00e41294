// Runs inside each function's Deno process (not type-checked by the app's tsc: see tsconfig.json).
// It does what edge-runtime does around a user worker (docs/reference/storage-functions.md B2): the
// function's own `Deno.serve` listens on a loopback port of the system's choosing (the port a
// function asks for is ignored, as on hosted), `export default { fetch }` is served too, and
// `EdgeRuntime.waitUntil` exists. A module that fails to load is a boot error.
const entrypoint = Deno.env.get('TEND_FUNCTION_ENTRYPOINT')!;
// The function sees only its own environment, as on hosted.
Deno.env.delete('TEND_FUNCTION_ENTRYPOINT');

// The stack stops its workers; if the stack itself is killed (SIGKILL), its workers follow it.
const parent = Deno.ppid;
Deno.unrefTimer(
  setInterval(() => {
    if (Deno.ppid !== parent) Deno.exit(0);
  }, 1000),
);

// The parent waits for this line and the port on stdout (and keeps it out of the function's log).
const READY = '\u0000tend-function-ready';

const pending = new Set<Promise<unknown>>();
Object.defineProperty(globalThis, 'EdgeRuntime', {
  value: Object.freeze({
    waitUntil(promise: Promise<unknown>) {
      const p = Promise.resolve(promise).finally(() => pending.delete(p));
      pending.add(p);
      return p;
    },
  }),
});

type Handler = (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;
type Options = { onError?: (error: unknown) => Response | Promise<Response>; signal?: AbortSignal };

const serve = Deno.serve.bind(Deno);
let serving = false;
// Every call shape of Deno.serve: (handler), (options, handler), ({ handler, ...options }).
const ownServe = (a: unknown, b?: unknown) => {
  const handler = (typeof a === 'function' ? a : typeof b === 'function' ? b : (a as { handler?: Handler })?.handler) as
    | Handler
    | undefined;
  if (!handler) throw new TypeError('Deno.serve: a handler is required');
  const options = (typeof a === 'object' && a ? a : {}) as Options;
  if (serving) throw new Error('Deno.serve was called twice: a function serves one handler');
  serving = true;
  return serve(
    {
      hostname: '127.0.0.1',
      port: 0,
      signal: options.signal,
      onError: options.onError,
      onListen: ({ port }) => console.log(`${READY} ${port}`),
    },
    handler,
  );
};
Object.defineProperty(Deno, 'serve', { value: ownServe, writable: true, configurable: true });

try {
  const mod = await import(entrypoint);
  const fetchHandler = mod?.default?.fetch;
  if (!serving && typeof fetchHandler === 'function')
    ownServe((req: Request, info: Deno.ServeHandlerInfo) => fetchHandler.call(mod.default, req, info));
  if (!serving) throw new Error('the function neither calls Deno.serve nor exports default { fetch }');
} catch (error) {
  // Hosted logs the same words ("worker boot error: …", reference: edge-function-503 guide).
  console.error('worker boot error:', error instanceof Error ? (error.stack ?? String(error)) : error);
  Deno.exit(1);
}
