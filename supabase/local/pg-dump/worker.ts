// Runs PGlite's pg_dump (WebAssembly, @electric-sql/pglite-tools) in a worker thread. That build
// talks to its server through two synchronous callbacks instead of a socket; here they hand each
// write to the main thread, which owns the real socket, and block (Atomics.wait) until it has put
// the server's answer into the shared buffer. Only erasable TypeScript: Node runs it without tsx.
import { parentPort, workerData } from 'node:worker_threads';
import { pgDump } from '@electric-sql/pglite-tools/pg_dump';

interface Options {
  shared: SharedArrayBuffer;
  args: string[];
}

const { shared, args } = workerData as Options;
// [0] 1 when the main thread filled the buffer, [1] bytes in it, [2] 1 when that ends the answer.
const control = new Int32Array(shared, 0, 4);
const data = new Uint8Array(shared, 16);

const server = {
  // pgDump() asks a PGlite instance for its search_path and restores it afterwards: nothing to do here.
  query: async () => ({ rows: [{ search_path: 'public' }] }),
  exec: async () => undefined,
  execProtocolRawStream(bytes: Uint8Array, { onRawData }: { onRawData: (b: Uint8Array) => void }) {
    parentPort!.postMessage({ write: bytes.slice() });
    for (;;) {
      Atomics.wait(control, 0, 0);
      const length = control[1]!;
      const last = control[2] === 1;
      const chunk = data.slice(0, length);
      Atomics.store(control, 0, 0);
      if (length) onRawData(chunk);
      if (last) return;
      parentPort!.postMessage({ more: true });
    }
  },
};

try {
  const file = await pgDump({ pg: server as never, args });
  parentPort!.postMessage({ dump: await file.text() });
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message });
}
