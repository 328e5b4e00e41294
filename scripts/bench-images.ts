// npm run bench:images — image transformations (sharp, in the storage service) against an
// ephemeral local stack with [storage.image_transformation] on, beside plain downloads of the same
// objects: the first render (sharp and libvips loading), then per round a 12-megapixel and a
// 1-megapixel JPEG downloaded as stored, resized to 400 × 300 (JPEG) and to WebP. Medians and
// spread over rounds, the ratio render / download per round, and the process's resident memory
// after the first render and after all rounds (the stack runs in this process). The client runs
// here too: its share is the same for both paths. The machine is shared: read ratios, not times.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { type ProjectConfig, startStack } from '@tend/supabase-local';
import { median, range } from './lib/bench.ts';

const ROUNDS = 7;
const MB = 1024 * 1024;

/** A photo-like JPEG (noise compresses as a photo does, unlike a flat colour). */
const photo = (width: number, height: number) =>
  sharp({
    create: { width, height, channels: 3, background: '#6a8', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
  })
    .jpeg({ quality: 85 })
    .toBuffer();

async function main() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tend-bench-images-'));
  const configure = (c: ProjectConfig) => {
    c.storage.imageTransformation = true;
  };
  const stack = await startStack({ port: 0, dir: root, ephemeral: true, log: () => undefined, configure });
  const headers = { apikey: stack.serviceRoleKey, authorization: `Bearer ${stack.serviceRoleKey}` };
  const storage = `${stack.apiUrl}/storage/v1`;
  const time = async (url: string, accept = '*/*') => {
    const t = performance.now();
    const res = await fetch(url, { headers: { ...headers, accept } });
    const bytes = (await res.arrayBuffer()).byteLength;
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    return { ms: performance.now() - t, bytes };
  };
  try {
    const bucket = await fetch(`${storage}/bucket`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    if (!bucket.ok) throw new Error(`create bucket: ${bucket.status}`);
    const sources = { '12 MP': await photo(4000, 3000), '1 MP': await photo(1200, 900) };
    for (const [name, body] of Object.entries(sources)) {
      const up = await fetch(`${storage}/object/bench/${encodeURIComponent(name)}.jpg`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'image/jpeg' },
        body,
      });
      if (!up.ok) throw new Error(`upload: ${up.status}`);
    }
    const rssBefore = process.memoryUsage.rss();
    const first = await time(`${storage}/render/image/authenticated/bench/1%20MP.jpg?width=400&height=300`);
    const rssFirst = process.memoryUsage.rss();

    const rows = [];
    const ratios: string[] = [];
    for (const name of Object.keys(sources)) {
      const key = `bench/${encodeURIComponent(name)}.jpg`;
      const t = { download: [] as number[], jpeg: [] as number[], webp: [] as number[] };
      let sizes = { download: 0, jpeg: 0, webp: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const d = await time(`${storage}/object/authenticated/${key}`);
        const j = await time(`${storage}/render/image/authenticated/${key}?width=400&height=300`);
        const w = await time(`${storage}/render/image/authenticated/${key}?width=400&height=300`, 'image/webp');
        t.download.push(d.ms);
        t.jpeg.push(j.ms);
        t.webp.push(w.ms);
        sizes = { download: d.bytes, jpeg: j.bytes, webp: w.bytes };
      }
      for (const k of Object.keys(t) as (keyof typeof t)[])
        rows.push({
          source: name,
          what: k === 'download' ? 'download as stored' : `400 × 300 ${k}`,
          'ms (median)': median(t[k]).toFixed(1),
          'min–max': range(t[k], 1),
          'KB out': (sizes[k] / 1024).toFixed(0),
        });
      const ratio = (a: number[]) => median(a.map((v, i) => v / t.download[i]!)).toFixed(1);
      ratios.push(`${name}: render / download ${ratio(t.jpeg)}× (JPEG), ${ratio(t.webp)}× (WebP)`);
    }
    const rssAfter = process.memoryUsage.rss();

    console.log(`\nbench:images — ${ROUNDS} rounds, sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}`);
    console.log(`first render (loads sharp and libvips): ${first.ms.toFixed(0)} ms`);
    console.table(rows);
    for (const line of ratios) console.log(`${line} (median of per-round ratios)`);
    console.log(
      `resident memory: +${((rssFirst - rssBefore) / MB).toFixed(0)} MB at the first render, ` +
        `+${((rssAfter - rssBefore) / MB).toFixed(0)} MB after all rounds (this process: stack and client)`,
    );
  } finally {
    await stack.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
