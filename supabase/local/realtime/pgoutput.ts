// Decodes pgoutput, Postgres's built-in logical replication output (protocol version 1), into whole
// transactions of row changes. Values stay as Postgres's text output; Postgres itself types them
// later (_realtime.typed_row). Pure: bytes in, objects out.

export interface Relation {
  id: number;
  schema: string;
  table: string;
  /** d(efault), n(othing), f(ull), i(ndex) */
  replicaIdentity: string;
  columns: { name: string; typeOid: number; key: boolean }[];
}

/** Column → text value; null is SQL NULL; a column missing is not in the WAL (unchanged TOAST, not identity). */
export type Row = Record<string, string | null>;

export interface RowChange {
  relation: Relation;
  action: 'INSERT' | 'UPDATE' | 'DELETE';
  new?: Row;
  /** The old row (REPLICA IDENTITY FULL) or its identity columns. */
  old?: Row;
}

export interface Transaction {
  /** The transaction's id (32 bits, as the Begin message carries it). */
  xid: number;
  /** Commit time in ms since the epoch (microseconds truncated). */
  commitTime: number;
  changes: RowChange[];
}

/** Microseconds between the Unix epoch and Postgres's (2000-01-01). */
const PG_EPOCH_US = 946_684_800_000_000n;

export class PgoutputDecoder {
  private relations = new Map<number, Relation>();
  private current: Transaction | null = null;

  /** Feeds one message; returns the transaction it completes, if any. */
  decode(buf: Buffer): Transaction | null {
    const r = new Reader(buf);
    const tag = String.fromCharCode(r.u8());
    switch (tag) {
      case 'B': {
        r.u64(); // final LSN
        const us = r.i64();
        this.current = { xid: r.u32(), commitTime: Number((us + PG_EPOCH_US) / 1000n), changes: [] };
        return null;
      }
      case 'C': {
        const done = this.current;
        this.current = null;
        return done;
      }
      case 'R': {
        const id = r.u32();
        const schema = r.cstring();
        const table = r.cstring();
        const replicaIdentity = String.fromCharCode(r.u8());
        const columns = Array.from({ length: r.u16() }, () => {
          const flags = r.u8();
          const name = r.cstring();
          const typeOid = r.u32();
          r.u32(); // typmod
          return { name, typeOid, key: (flags & 1) === 1 };
        });
        this.relations.set(id, { id, schema, table, replicaIdentity, columns });
        return null;
      }
      case 'I':
      case 'U':
      case 'D': {
        const relation = this.relations.get(r.u32());
        if (!relation) throw new Error('pgoutput: change for an unknown relation');
        const change: RowChange = {
          relation,
          action: tag === 'I' ? 'INSERT' : tag === 'U' ? 'UPDATE' : 'DELETE',
        };
        let part = String.fromCharCode(r.u8());
        if (part === 'K' || part === 'O') {
          change.old = this.tuple(r, relation, part === 'K');
          if (tag === 'U') part = String.fromCharCode(r.u8());
        }
        if (part === 'N') change.new = this.tuple(r, relation, false);
        this.current?.changes.push(change);
        return null;
      }
      default:
        // Y (type), O (origin), T (truncate), M (message): nothing Realtime sends.
        return null;
    }
  }

  private tuple(r: Reader, relation: Relation, keyOnly: boolean): Row {
    const row: Row = {};
    const n = r.u16();
    for (let i = 0; i < n; i++) {
      const column = relation.columns[i]!;
      const kind = String.fromCharCode(r.u8());
      if (kind === 'n') {
        if (!keyOnly || column.key) row[column.name] = null;
      } else if (kind === 't' || kind === 'b') {
        const value = r.bytes(r.u32()).toString('utf8');
        if (!keyOnly || column.key) row[column.name] = value;
      }
      // 'u': unchanged TOAST value, not in the WAL
    }
    return row;
  }
}

class Reader {
  private offset = 0;
  constructor(private buf: Buffer) {}
  u8() {
    return this.buf.readUInt8(this.offset++);
  }
  u16() {
    const v = this.buf.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  u32() {
    const v = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  u64() {
    const v = this.buf.readBigUInt64BE(this.offset);
    this.offset += 8;
    return v;
  }
  i64() {
    const v = this.buf.readBigInt64BE(this.offset);
    this.offset += 8;
    return v;
  }
  cstring() {
    const end = this.buf.indexOf(0, this.offset);
    const s = this.buf.toString('utf8', this.offset, end);
    this.offset = end + 1;
    return s;
  }
  bytes(n: number) {
    const b = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return b;
  }
}
