// Island pages (docs/decisions/006-javascript-budget.md): the server-side marker and the build's
// checks and manifest, from esbuild's metafile.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Metafile } from 'esbuild';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Island, islandOf } from '~/components/island.tsx';
import { islandLoader } from '~/components/islands.server.tsx';
import { forbiddenInputs, manifestOf } from '../../scripts/build-islands.ts';

const PROJECT_DIR = path.resolve(import.meta.dirname, '..', '..');

const Hello = ({ who }: { who: string }) => createElement('p', null, `Hello ${who}`);

describe('<Island>', () => {
  it('renders the component inside a marker with its name and props', () => {
    const html = renderToString(
      createElement(Island, { of: { hello: Hello }, name: 'hello', props: { who: 'Ada' }, className: 'box' }),
    );
    expect(html).toBe(
      '<div class="box" data-island="hello" data-island-props="{&quot;who&quot;:&quot;Ada&quot;}"><p>Hello Ada</p></div>',
    );
  });

  it('reads the island a route handle names', () => {
    expect(islandOf({ island: 'verify' })).toBe('verify');
    expect(islandOf(undefined)).toBeUndefined();
    expect(islandOf({ other: true })).toBeUndefined();
  });
});

function metafile(inputs: string[], outputs: Metafile['outputs'] = {}): Metafile {
  return { inputs: Object.fromEntries(inputs.map((i) => [i, { bytes: 1, imports: [] }])), outputs };
}

describe('the island build', () => {
  it('refuses Remix, zod, Conform and server-only modules in an island', () => {
    const found = forbiddenInputs(
      metafile([
        'node_modules/react-dom/cjs/react-dom.production.min.js',
        'node_modules/input-otp/dist/index.mjs',
        'app/components/otp-field.tsx',
        'node_modules/@remix-run/react/dist/esm/index.js',
        'node_modules/zod/v4/classic/schemas.js',
        'node_modules/@conform-to/zod/dist/index.mjs',
        'app/lib/env.server.ts',
        'app/components/islands.server.tsx',
      ]),
    );
    expect(found.map((f) => f.split(':')[0])).toEqual([
      'node_modules/@remix-run/react/dist/esm/index.js',
      'node_modules/zod/v4/classic/schemas.js',
      'node_modules/@conform-to/zod/dist/index.mjs',
      'app/lib/env.server.ts',
      'app/components/islands.server.tsx',
    ]);
  });

  it('maps each island to its hashed module and the chunks it imports', () => {
    const outdir = path.join(PROJECT_DIR, 'public', 'build', 'islands');
    const output = (imports: Metafile['outputs'][string]['imports'], entryPoint?: string) => ({
      bytes: 1,
      inputs: {},
      exports: [],
      imports,
      entryPoint,
    });
    const meta = metafile([], {
      'public/build/islands/verify-AB12CD34.js': output(
        [{ path: 'public/build/islands/chunk-XY98ZW76.js', kind: 'import-statement' }],
        'app/islands/verify.tsx',
      ),
      'public/build/islands/chunk-XY98ZW76.js': output([]),
    });
    expect(
      manifestOf(meta, { outdir, publicPath: '/build/islands/', serverDir: path.join(PROJECT_DIR, 'build') }),
    ).toEqual({
      verify: { src: '/build/islands/verify-AB12CD34.js', imports: ['/build/islands/chunk-XY98ZW76.js'] },
    });
  });
});

describe('the island loader of a page the same for every reader', () => {
  const assets = { src: '/build/islands/help-AB12CD34.js', imports: ['/build/islands/chunk-XY98ZW76.js'] };

  it('adds the island and its chunks as module scripts, and nothing it reads from the page', () => {
    const { code } = islandLoader(assets);
    expect(code).toContain('["/build/islands/chunk-XY98ZW76.js","/build/islands/help-AB12CD34.js"]');
    expect(code).toContain('s.type="module"');
    expect(code).not.toMatch(/dataset|getAttribute|currentScript|location/);
  });

  it('is allowed by the sha256 of exactly its code, as React renders it', () => {
    const { code, hash } = islandLoader(assets);
    expect(hash).toBe(`sha256-${createHash('sha256').update(code).digest('base64')}`);
    // biome-ignore lint/security/noDangerouslySetInnerHtml: as islands.server.tsx renders the loader
    const html = renderToString(createElement('script', { dangerouslySetInnerHTML: { __html: code } }));
    expect(html).toBe(`<script>${code}</script>`);
  });
});
