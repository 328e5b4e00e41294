// The server's route matching with Tend's patch of @remix-run/router (patches/,
// docs/decisions/028-route-matching-cache.md): the same matches as before, without building a
// RegExp or ranking the routes again on every request.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';

// The build the server loads (@remix-run/server-runtime requires it); browsers get dist/router.js.
const router = createRequire(import.meta.url)('@remix-run/router') as typeof import('@remix-run/router');

// Tend's shape: flat routes under the root, an index, params, a splat (app/routes/).
const routes = () => [
  {
    id: 'root',
    path: '',
    children: [
      { id: 'routes/_index', index: true },
      { id: 'routes/login', path: 'login' },
      { id: 'routes/w.$slug._index', path: 'w/:slug', index: true },
      { id: 'routes/w.$slug.reports', path: 'w/:slug/reports' },
      { id: 'routes/w.$slug.tickets.$number', path: 'w/:slug/tickets/:number' },
      { id: 'routes/w.$slug.tickets.$number.files.$id', path: 'w/:slug/tickets/:number/files/:id' },
      { id: 'routes/support.$slug.requests.$number', path: 'support/:slug/requests/:number' },
      { id: 'routes/$', path: '*' },
    ],
  },
];

const matched = (tree: ReturnType<typeof routes>, pathname: string) =>
  router.matchRoutes(tree, pathname)?.map((m) => ({ id: m.route.id, params: m.params, pathname: m.pathname }));

/** Counts `new RegExp(…)` while `fn` runs (compilePath builds each route's pattern that way). */
function regExpsBuilt(fn: () => void): number {
  let built = 0;
  const Original = globalThis.RegExp;
  vi.stubGlobal(
    'RegExp',
    new Proxy(Original, {
      construct(target, args) {
        built++;
        return Reflect.construct(target, args);
      },
    }),
  );
  try {
    fn();
  } finally {
    vi.unstubAllGlobals();
  }
  return built;
}

afterEach(() => vi.unstubAllGlobals());

describe('route matching on the server', () => {
  it('matches as upstream does: statics before params, index routes, the splat last', () => {
    const tree = routes();
    for (let pass = 0; pass < 2; pass++) {
      expect(matched(tree, '/')?.map((m) => m.id)).toEqual(['root', 'routes/_index']);
      expect(matched(tree, '/login')?.at(-1)).toEqual({ id: 'routes/login', params: {}, pathname: '/login' });
      expect(matched(tree, '/w/acme/reports')?.at(-1)?.id).toBe('routes/w.$slug.reports');
      expect(matched(tree, '/W/acme/Tickets/12/')?.at(-1)).toEqual({
        id: 'routes/w.$slug.tickets.$number',
        params: { slug: 'acme', number: '12' },
        pathname: '/W/acme/Tickets/12/',
      });
      expect(matched(tree, '/w/acme/tickets/12/files/f1')?.at(-1)?.params).toMatchObject({ id: 'f1', number: '12' });
      expect(matched(tree, '/w/acme/tickets')?.at(-1)).toMatchObject({
        id: 'routes/$',
        params: { '*': 'w/acme/tickets' },
      });
    }
  });

  it('builds no RegExp for a path it has matched before', () => {
    const tree = routes();
    tree[0]!.children.push({ id: 'routes/only-here', path: 'only-here/:x' });
    expect(regExpsBuilt(() => matched(tree, '/only-here/1'))).toBeGreaterThan(0);
    expect(regExpsBuilt(() => matched(tree, '/only-here/1'))).toBe(0);
    // Another request's routes (Remix builds them per document) reuse the same patterns.
    const next = routes();
    next[0]!.children.push({ id: 'routes/only-here', path: 'only-here/:x' });
    expect(regExpsBuilt(() => matched(next, '/only-here/2'))).toBe(0);
  });

  it('ranks a routes array once, and a new array afresh', () => {
    const tree = routes();
    matched(tree, '/login');
    tree[0]!.children.push({ id: 'routes/late', path: 'late' });
    // The same array: its ranking is kept (the server's routes never change once built).
    expect(matched(tree, '/late')?.at(-1)?.id).toBe('routes/$');
    const fresh = routes();
    fresh[0]!.children.push({ id: 'routes/late', path: 'late' });
    expect(matched(fresh, '/late')?.at(-1)?.id).toBe('routes/late');
  });

  it('tries only the branch a path matched before, with each array its own route objects', () => {
    // A path no branch but the splat matches: the first time every branch ranked above it is tried.
    const tries = (fn: () => void) => {
      const match = vi.spyOn(String.prototype, 'match');
      try {
        fn();
        return match.mock.calls.length;
      } finally {
        match.mockRestore();
      }
    };
    const first = routes();
    first[0]!.children.push({ id: 'routes/tried', path: 'tried/:x' });
    expect(tries(() => matched(first, '/w/acme/nowhere/9'))).toBeGreaterThan(5);
    // Another request's array of the same shape (Remix builds one per document): one branch, root and splat.
    const next = routes();
    next[0]!.children.push({ id: 'routes/tried', path: 'tried/:x' });
    let again: ReturnType<typeof router.matchRoutes> = null;
    expect(tries(() => (again = router.matchRoutes(next, '/w/acme/nowhere/9')))).toBe(2);
    expect(again![0]!.route).toBe(next[0]);
    expect(again!.map((m) => m.route.id)).toEqual(['root', 'routes/$']);
    expect(again!.at(-1)!.route).toBe(next[0]!.children.find((r) => r.id === 'routes/$'));
    expect(again!.at(-1)!.params).toEqual({ '*': 'w/acme/nowhere/9' });
    // Its params are its own: changing them changes no later match.
    (again!.at(-1)!.params as Record<string, string>)['*'] = 'changed';
    expect(matched(next, '/w/acme/nowhere/9')?.at(-1)?.params).toEqual({ '*': 'w/acme/nowhere/9' });
    // A path nothing matches is remembered as such.
    const none = [{ id: 'only', path: 'only' }];
    expect(router.matchRoutes(none, '/other')).toBeNull();
    expect(router.matchRoutes([{ id: 'only', path: 'only' }], '/other')).toBeNull();
    expect(router.matchRoutes([{ id: 'only', path: 'only' }], '/only')?.[0]?.route.id).toBe('only');
  });

  it('keeps case sensitivity and partial matching apart', () => {
    expect(router.matchPath({ path: '/Login', caseSensitive: true, end: true }, '/login')).toBeNull();
    expect(router.matchPath({ path: '/Login', caseSensitive: false, end: true }, '/login')).not.toBeNull();
    expect(router.matchPath({ path: '/w/:slug', end: false }, '/w/acme/tickets')?.pathnameBase).toBe('/w/acme');
    expect(router.matchPath({ path: '/w/:slug', end: true }, '/w/acme/tickets')).toBeNull();
  });
});
