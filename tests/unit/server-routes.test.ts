// <RemixServer> and the server runtime with Tend's patches of @remix-run/react and @remix-run/server-runtime
// (patches/, docs/decisions/091-page-cpu-outside-sql.md): the route objects made from the build's manifest and
// modules, and the modules by route id, once per build, not on every document.
import { createRequire } from 'node:module';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

// The builds the server loads (CommonJS, as @remix-run/server-runtime and the server build require them).
const require = createRequire(import.meta.url);
const { RemixServer } = require('@remix-run/react') as typeof import('@remix-run/react');
const router = require('@remix-run/router') as typeof import('@remix-run/router');
const { createStaticRouter } = require('react-router-dom/server') as typeof import('react-router-dom/server');
// What the request handler gives every document as `routeModules` (server.js: createEntryRouteModules(build.routes)).
const { createEntryRouteModules } = require('@remix-run/server-runtime/dist/entry.js') as {
  createEntryRouteModules: (routes: Record<string, { module: unknown }>) => Record<string, unknown>;
};

/** A manifest whose route entries count the reads of their fields (the route objects are made from them). */
function countedManifest() {
  const reads = { count: 0 };
  const entry = (route: Record<string, unknown>) =>
    new Proxy(route, {
      get(target, key, receiver) {
        reads.count++;
        return Reflect.get(target, key, receiver);
      },
    });
  const routes = {
    root: entry({ id: 'root', path: '', hasLoader: true, module: '/build/root.js' }),
    'routes/w.$slug': entry({
      id: 'routes/w.$slug',
      parentId: 'root',
      path: 'w/:slug',
      hasLoader: true,
      module: '/build/w.js',
    }),
  };
  return {
    reads,
    manifest: { routes, entry: { module: '/build/entry.js', imports: [] }, url: '/build/manifest.js', version: '1' },
  };
}

const modules = () => ({
  root: { default: () => createElement('main', null, 'Tend') },
  'routes/w.$slug': { default: () => createElement('p', null, 'inbox') },
});

/** One document: the static handler's context for `path`, rendered as Remix renders it. */
async function render(
  manifest: ReturnType<typeof countedManifest>['manifest'],
  routeModules: ReturnType<typeof modules>,
  future: object,
) {
  const handler = router.createStaticHandler([
    {
      id: 'root',
      path: '/',
      loader: () => null,
      children: [{ id: 'routes/w.$slug', path: 'w/:slug', loader: () => null }],
    },
  ]);
  const context = await handler.query(new Request('http://tend.test/w/acme'));
  if (context instanceof Response) throw new Error('unexpected response');
  return renderToString(
    createElement(RemixServer, {
      context: {
        manifest,
        routeModules,
        staticHandlerContext: context,
        future,
        isSpaMode: false,
        serverHandoffString: '{}',
      } as never,
      url: 'http://tend.test/w/acme',
    }),
  );
}

describe('<RemixServer> route objects', () => {
  it('are made from the manifest once per build: a second document reads none of its routes', async () => {
    const { reads, manifest } = countedManifest();
    const routeModules = modules();
    const future = {};
    const first = await render(manifest, routeModules, future);
    expect(first).toContain('Tend');
    expect(reads.count).toBeGreaterThan(0);
    reads.count = 0;
    // Remix passes the build's manifest and a fresh object of the same modules with every document.
    const second = await render(manifest, { ...routeModules }, future);
    expect(second).toBe(first);
    expect(reads.count).toBe(0); // upstream made them again: 22 reads
  });

  it('are made again when a module changes (a rebuild in development)', async () => {
    const { reads, manifest } = countedManifest();
    const routeModules = modules();
    const future = {};
    await render(manifest, routeModules, future);
    reads.count = 0;
    const changed = { ...routeModules, root: { default: () => createElement('main', null, 'Tend, rebuilt') } };
    expect(await render(manifest, changed, future)).toContain('Tend, rebuilt');
    expect(reads.count).toBeGreaterThan(0);
  });

  it("are the server runtime's: one modules object per build's routes, the same for every document", () => {
    const mod = modules();
    const buildRoutes = { root: { module: mod.root }, 'routes/w.$slug': { module: mod['routes/w.$slug'] } };
    const first = createEntryRouteModules(buildRoutes);
    expect(first).toEqual(mod);
    expect(createEntryRouteModules(buildRoutes)).toBe(first); // upstream: a new object every time
    // Another build (a rebuild in development) has routes of its own.
    const rebuilt = { ...buildRoutes, root: { module: { default: () => null } } };
    expect(createEntryRouteModules(rebuilt).root).toBe(rebuilt.root.module);
  });

  it("are the static router's data routes once per routes array (react-router-dom, patched)", async () => {
    const handler = router.createStaticHandler([{ id: 'root', path: '/', loader: () => null }]);
    const context = await handler.query(new Request('http://tend.test/'));
    if (context instanceof Response) throw new Error('unexpected response');
    const routes = [{ id: 'root', path: '/', element: createElement('main') }];
    const first = createStaticRouter(routes, context);
    expect(first.routes[0]).toMatchObject({ id: 'root', path: '/' });
    expect(createStaticRouter(routes, context).routes).toBe(first.routes); // upstream: copied every time
    expect(createStaticRouter([...routes], context).routes).not.toBe(first.routes);
  });
});
