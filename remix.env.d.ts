/// <reference types="@remix-run/dev" />
/// <reference types="@remix-run/node" />

// Single fetch's types for useLoaderData/useActionData (remix.config.js turns it on); the export
// makes this file a module, so the declaration below adds to @remix-run/node instead of replacing it.
export {};

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true;
  }
}
