/** @type {import('@remix-run/dev').AppConfig} */
export default {
  // Classic compiler (docs/decisions/002-classic-compiler.md).
  ignoredRouteFiles: ['**/.*', '**/*.test.{ts,tsx}', '**/*.server.{ts,tsx}'],
  serverModuleFormat: 'esm',
  serverPlatform: 'node',
  // input-otp ships ESM and CJS; bundling it keeps the server build independent of its export map.
  serverDependenciesToBundle: [/^input-otp/],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
  },
};
