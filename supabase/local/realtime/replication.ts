// The logical replication stream Realtime reads changes from: pgoutput over the replication protocol,
// for the publications supabase_realtime (postgres_changes) and supabase_realtime_messages_publication
// (database broadcasts). The slot is TEMPORARY: Postgres drops it when this connection ends, however
// it ends, so a crash can't leave one behind holding WAL. A broken connection (Postgres restarting,
// a terminated backend) is retried with back-off; `onDown` and `onUp` tell the service.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { createClient } from '../connections.ts';
import { PgoutputDecoder, type Transaction } from './pgoutput.ts';

export const PUBLICATIONS = ['supabase_realtime', 'supabase_realtime_messages_publication'];

export interface ReplicationOptions {
  url: string;
  /** Called for each committed transaction, in commit order; the next waits for it. */
  onTransaction(tx: Transaction): Promise<void>;
  /**
   * Called for each committed transaction as soon as it is decoded, before it waits its turn for
   * onTransaction (which may be busy deciding an earlier transaction's thousand changes).
   */
  onDecoded?(tx: Transaction): void;
  onUp(): void;
  onDown(reason: string): void;
  log(message: string): void;
}

// Back-off between attempts: 100 ms doubling to 5 s, with jitter (upstream's poller uses the same range).
const backoff = (attempt: number) => Math.min(5000, 100 * 2 ** attempt) * (0.5 + Math.random() / 2);

/** Microseconds since 2000-01-01, as the standby status message wants them. */
const pgNow = () => BigInt(Date.now()) * 1000n - 946_684_800_000_000n;

export function startReplication(opts: ReplicationOptions) {
  let client: pg.Client | null = null;
  let stopped = false;
  let up = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;
  let feedback: NodeJS.Timeout | undefined;

  const connect = async () => {
    retry = undefined;
    if (stopped) return;
    const slot = `supabase_realtime_local_${randomBytes(6).toString('hex')}`;
    const c = createClient({ connectionString: opts.url, replication: 'database' } as pg.ClientConfig, (e) =>
      fail(e.message),
    );
    client = c;
    let received = 0n; // the last WAL position we have processed
    const status = (reply = false) => {
      const b = Buffer.alloc(34);
      b.write('r', 0);
      b.writeBigUInt64BE(received, 1);
      b.writeBigUInt64BE(received, 9);
      b.writeBigUInt64BE(received, 17);
      b.writeBigInt64BE(pgNow(), 25);
      b.writeUInt8(reply ? 1 : 0, 33);
      (c as unknown as { connection: { sendCopyFromChunk(b: Buffer): void } }).connection.sendCopyFromChunk(b);
    };
    let failed = false;
    const fail = (reason: string) => {
      if (failed) return;
      failed = true;
      clearInterval(feedback);
      c.end().catch(() => undefined);
      if (client === c) client = null;
      if (up) {
        up = false;
        opts.onDown(reason);
      }
      if (!stopped) {
        opts.log(`replication: ${reason}; retrying`);
        retry = setTimeout(connect, backoff(attempt++));
      }
    };
    c.on('end', () => fail('connection closed'));
    try {
      await c.connect();
      await c.query(`CREATE_REPLICATION_SLOT ${slot} TEMPORARY LOGICAL pgoutput NOEXPORT_SNAPSHOT`);
    } catch (e) {
      return fail((e as Error).message);
    }
    if (stopped) return void c.end().catch(() => undefined);

    const decoder = new PgoutputDecoder();
    // Transactions wait in order; while too many wait, stop reading (Postgres keeps the rest in WAL).
    const queue: { tx: Transaction; end: bigint }[] = [];
    let draining = false;
    const stream = (c as unknown as { connection: { stream: NodeJS.ReadableStream } }).connection.stream;
    const drain = async () => {
      if (draining) return;
      draining = true;
      while (queue.length && !failed) {
        const { tx, end } = queue.shift()!;
        try {
          await opts.onTransaction(tx);
        } catch (e) {
          opts.log(`replication: a change could not be delivered: ${(e as Error).message}`);
        }
        received = end;
        if (queue.length < 100) stream.resume();
      }
      draining = false;
    };
    (c as unknown as { connection: NodeJS.EventEmitter }).connection.on('copyData', ({ chunk }: { chunk: Buffer }) => {
      if (chunk[0] === 0x77 /* w: XLogData */) {
        const end = chunk.readBigUInt64BE(9);
        const tx = decoder.decode(chunk.subarray(25));
        if (tx) {
          opts.onDecoded?.(tx);
          queue.push({ tx, end });
          if (queue.length >= 100) stream.pause();
          void drain();
        } else if (!queue.length && !draining) received = end;
      } else if (chunk[0] === 0x6b /* k: keepalive */) {
        if (!queue.length && !draining) received = chunk.readBigUInt64BE(1);
        if (chunk[17] === 1) status();
      }
    });
    const publications = PUBLICATIONS.map((p) => `"${p}"`).join(',');
    c.query(`START_REPLICATION SLOT ${slot} LOGICAL 0/0 (proto_version '1', publication_names '${publications}')`).then(
      () => fail('replication ended'),
      (e: Error) => fail(e.message),
    );
    // Tell Postgres what we have done, so it can release WAL (and knows we are alive).
    feedback = setInterval(() => !failed && status(), 10_000);
    feedback.unref();
    attempt = 0;
    up = true;
    opts.onUp();
  };

  void connect();
  return {
    get up() {
      return up;
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      clearInterval(feedback);
      const c = client;
      client = null;
      up = false;
      await c?.end().catch(() => undefined);
    },
  };
}

export type Replication = ReturnType<typeof startReplication>;
