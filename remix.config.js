/**
 * Remix v2 with the classic compiler (docs/decisions/002-classic-compiler.md).
 * TEND_BUILD_DIR puts a build elsewhere (tests, benchmarks), so it can't collide with the one
 * `remix dev` keeps rewriting in build/ and public/build/ of a shared working tree.
 * @type {import('@remix-run/dev').AppConfig}
 */
const out = process.env.TEND_BUILD_DIR;

export default {
  ignoredRouteFiles: ['**/.*', '**/*.test.{ts,tsx}'],
  serverModuleFormat: 'esm',
  ...(out ? { serverBuildPath: `${out}/index.js`, assetsBuildDirectory: `${out}/public/build` } : {}),
  // Every flag Remix asks for before React Router v7 (docs/decisions/014-single-fetch.md).
  future: {
    v3_fetcherPersist: true,
    v3_lazyRouteDiscovery: true,
    v3_relativeSplatPath: true,
    v3_singleFetch: true,
    v3_throwAbortReason: true,
  },
};
