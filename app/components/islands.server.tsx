// The scripts of an island page (docs/decisions/006-javascript-budget.md), which root.tsx renders
// instead of Remix's <Scripts/>: the island's module, with the document's CSP nonce.
// scripts/build-islands.ts writes where each island was built to islands.json next to the server
// build, which is the file this module is bundled into, so the same relative URL finds it for
// build/ and for a TEND_BUILD_DIR.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ReactElement } from 'react';
import { log } from '~/lib/http/log.server.ts';
import { islandOf } from './island.tsx';

export interface IslandAssets {
  /** The module to load, e.g. /build/islands/verify-3XQ2M7ZL.js. */
  src: string;
  /** Chunks it imports (when islands share code), to preload. */
  imports: string[];
}

export type IslandManifest = Record<string, IslandAssets>;

export const ISLAND_MANIFEST_FILE = 'islands.json';
const manifestUrl = new URL(`./${ISLAND_MANIFEST_FILE}`, import.meta.url);

function readManifest(): IslandManifest | null {
  try {
    return JSON.parse(readFileSync(manifestUrl, 'utf8')) as IslandManifest;
  } catch {
    return null;
  }
}

// Production reads it once, at start-up; `npm run dev` rebuilds islands while the server runs.
const production = process.env.NODE_ENV === 'production';
const startupManifest = production ? readManifest() : null;
const warned = new Set<string>();

/**
 * The built module of island `name`; null when it wasn't built (`remix build` alone), and the
 * page then loads Remix's runtime as any other page does, which its route renders just as well.
 */
function islandAssets(name: string): IslandAssets | null {
  const assets = (production ? startupManifest : readManifest())?.[name] ?? null;
  if (!assets && !warned.has(name)) {
    warned.add(name);
    log.warn('island not built; the page loads the Remix runtime instead (npm run build builds islands)', {
      island: name,
      manifest: manifestUrl.pathname,
    });
  }
  return assets;
}

/** The built island the deepest matched route names in its `handle`; null for any other page (or one not built). */
export function islandAssetsOf(matches: { handle?: unknown }[]): IslandAssets | null {
  const name = matches.map((match) => islandOf(match.handle)).findLast((island) => island !== undefined);
  return name ? islandAssets(name) : null;
}

export interface IslandLoader {
  code: string;
  /** For the CSP: 'sha256-…' of `code`. */
  hash: string;
}

const loaders = new Map<string, IslandLoader>();

/**
 * The inline script that loads an island in a document the same for every reader, which has no nonce
 * (docs/decisions/072-help-pages-sent-from-memory.md): the CSP allows this script by its hash, and with
 * 'strict-dynamic' the module scripts it adds (the island and the chunks it imports). Everything it
 * loads is written in it, so a copy injected elsewhere could load nothing else.
 */
export function islandLoader(assets: IslandAssets): IslandLoader {
  let loader = loaders.get(assets.src);
  if (!loader) {
    const code = `for(const src of ${JSON.stringify([...assets.imports, assets.src])}){const s=document.createElement("script");s.type="module";s.src=src;document.body.append(s)}`;
    loader = { code, hash: `sha256-${createHash('sha256').update(code).digest('base64')}` };
    loaders.set(assets.src, loader);
  }
  return loader;
}

/** Marks the inline loader (scripts/page-js.ts counts what it loads). */
const ISLAND_LOADER_ATTR = 'data-island-loader';

/**
 * The scripts of the island the deepest matched route names in its `handle`; null for any other
 * page (and for an island that wasn't built), which gets Remix's scripts. `nonce` null: the document
 * is the same for every reader, and loads the island with its inline loader instead.
 */
export function islandScripts(matches: { handle?: unknown }[], nonce: string | null): ReactElement | null {
  const assets = islandAssetsOf(matches);
  if (!assets) return null;
  if (nonce === null) {
    const attrs = { [ISLAND_LOADER_ATTR]: '' };
    // biome-ignore lint/security/noDangerouslySetInnerHtml: our own constant code (islandLoader), allowed by its hash
    return <script {...attrs} dangerouslySetInnerHTML={{ __html: islandLoader(assets).code }} />;
  }
  return (
    <>
      {assets.imports.map((href) => (
        <link key={href} rel="modulepreload" href={href} nonce={nonce} />
      ))}
      <script type="module" src={assets.src} nonce={nonce} />
    </>
  );
}
