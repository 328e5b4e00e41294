// The realtime service's pure parts: serializers against realtime-js's own, the pgoutput decoder,
// postgres_changes parameter parsing and the rate counter.
import Serializer from '@supabase/realtime-js/dist/main/lib/serializer.js';
import { describe, expect, it } from 'vitest';
import {
  RateCounter,
  PgoutputDecoder,
  paramsToLog,
  parseSubscription,
  subscriptionId,
  surelyFiltersOut,
  decode,
  encode,
  encodeUserBroadcast,
  negotiate,
} from '@tend/supabase-local/testing';

const client = new Serializer();
const clientEncode = (msg: object) =>
  new Promise<ArrayBuffer | string>((resolve) => client.encode(msg as never, (r: ArrayBuffer | string) => resolve(r)));
const clientDecode = (raw: ArrayBuffer | string) =>
  new Promise<Record<string, unknown>>((resolve) => client.decode(raw, resolve));

describe('serializers', () => {
  it('negotiates 1.0.0 (the default) and 2.0.0, nothing else', () => {
    expect(negotiate(null)).toBe('1.0.0');
    expect(negotiate('1.0.0')).toBe('1.0.0');
    expect(negotiate('2.0.0')).toBe('2.0.0');
    expect(negotiate('3.0.0')).toBeNull();
  });

  it('decodes a realtime-js broadcast push (binary kind 3) and its JSON messages', async () => {
    const frame = await clientEncode({
      join_ref: '1',
      ref: '2',
      topic: 'realtime:room',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'wave', payload: { hi: 'é' } },
    });
    const inbound = decode('2.0.0', Buffer.from(frame as ArrayBuffer), true);
    expect(inbound).toEqual({
      kind: 'user-broadcast',
      joinRef: '1',
      ref: '2',
      broadcast: {
        topic: 'realtime:room',
        event: 'wave',
        encoding: 'json',
        payload: Buffer.from('{"hi":"é"}'),
        metadata: null,
      },
    });
    const text = await clientEncode({
      join_ref: '1',
      ref: '3',
      topic: 'realtime:room',
      event: 'presence',
      payload: {},
    });
    expect(decode('2.0.0', Buffer.from(text as string), false)).toEqual({
      kind: 'message',
      message: { joinRef: '1', ref: '3', topic: 'realtime:room', event: 'presence', payload: {} },
    });
  });

  it('encodes user broadcasts (kind 4) that realtime-js decodes, and JSON for 1.0.0 clients', async () => {
    const b = {
      topic: 'realtime:room',
      event: 'wave',
      encoding: 'json' as const,
      payload: Buffer.from('{"n":1}'),
      metadata: { id: 'x' },
    };
    const frame = encodeUserBroadcast('2.0.0', b) as Buffer;
    const ab = new Uint8Array(frame).buffer;
    expect(await clientDecode(ab)).toEqual({
      join_ref: null,
      ref: null,
      topic: 'realtime:room',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'wave', payload: { n: 1 }, meta: { id: 'x' } },
    });
    expect(JSON.parse(encodeUserBroadcast('1.0.0', b) as string)).toEqual({
      topic: 'realtime:room',
      event: 'broadcast',
      payload: { event: 'wave', payload: { n: 1 }, type: 'broadcast', meta: { id: 'x' } },
      ref: null,
    });
    expect(encodeUserBroadcast('1.0.0', { ...b, encoding: 'binary' })).toBeNull();
    expect(encode('2.0.0', { joinRef: null, ref: '1', topic: 'phoenix', event: 'phx_reply', payload: {} })).toBe(
      '[null,"1","phoenix","phx_reply",{}]',
    );
  });
});

/** pgoutput messages as Postgres writes them. */
const pg = {
  begin: (commitUs: bigint, xid = 0) => {
    const b = Buffer.alloc(21);
    b.write('B', 0);
    b.writeBigUInt64BE(1n, 1);
    b.writeBigInt64BE(commitUs, 9);
    b.writeUInt32BE(xid, 17);
    return b;
  },
  relation: (id: number, schema: string, table: string, cols: [string, number, boolean][]) =>
    Buffer.concat([
      Buffer.from('R'),
      u32(id),
      Buffer.from(`${schema}\0${table}\0d`),
      u16(cols.length),
      ...cols.map(([name, oid, key]) =>
        Buffer.concat([Buffer.from([key ? 1 : 0]), Buffer.from(`${name}\0`), u32(oid), u32(0xffffffff)]),
      ),
    ]),
  tuple: (values: (string | null | 'TOAST')[]) =>
    Buffer.concat([
      u16(values.length),
      ...values.map((v) =>
        v === null
          ? Buffer.from('n')
          : v === 'TOAST'
            ? Buffer.from('u')
            : Buffer.concat([Buffer.from('t'), u32(Buffer.byteLength(v)), Buffer.from(v)]),
      ),
    ]),
  commit: () => Buffer.concat([Buffer.from('C'), Buffer.alloc(25)]),
};
function u32(n: number) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
function u16(n: number) {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

describe('pgoutput', () => {
  it('turns a transaction into row changes with text values, key tuples and unchanged TOAST left out', () => {
    const d = new PgoutputDecoder();
    // 2024-01-01T00:00:00.123456Z in microseconds since 2000-01-01
    const commit = BigInt(Date.UTC(2024, 0, 1) - Date.UTC(2000, 0, 1)) * 1000n + 123_456n;
    expect(d.decode(pg.begin(commit, 4_000_000_123))).toBeNull();
    d.decode(
      pg.relation(42, 'public', 'tickets', [
        ['id', 20, true],
        ['body', 25, false],
        ['note', 25, false],
      ]),
    );
    d.decode(Buffer.concat([Buffer.from('I'), u32(42), Buffer.from('N'), pg.tuple(['1', 'hello', null])]));
    d.decode(Buffer.concat([Buffer.from('U'), u32(42), Buffer.from('N'), pg.tuple(['1', 'bye', 'TOAST'])]));
    d.decode(Buffer.concat([Buffer.from('D'), u32(42), Buffer.from('K'), pg.tuple(['1', null, null])]));
    const tx = d.decode(pg.commit());
    expect(new Date(tx!.commitTime).toISOString()).toBe('2024-01-01T00:00:00.123Z');
    expect(tx!.xid).toBe(4_000_000_123);
    expect(tx!.changes.map(({ relation, ...c }) => ({ table: relation.table, ...c }))).toEqual([
      { table: 'tickets', action: 'INSERT', new: { id: '1', body: 'hello', note: null } },
      { table: 'tickets', action: 'UPDATE', new: { id: '1', body: 'bye' } },
      { table: 'tickets', action: 'DELETE', old: { id: '1' } },
    ]);
  });
});

describe('postgres_changes parameters', () => {
  it('parses the filters realtime-js sends, as upstream does', () => {
    expect(parseSubscription({ event: 'insert', schema: 'public', table: 'tickets', filter: 'id=in.(1,2)' })).toEqual({
      ok: true,
      params: {
        action: 'INSERT',
        schema: 'public',
        table: 'tickets',
        filters: [['id', 'in', '{1,2}', false]],
        select: null,
      },
    });
    const parsed = parseSubscription({ schema: 'public', table: 't', filter: 'a=not.eq."x,y",b=gte.3' });
    expect(parsed).toMatchObject({
      ok: true,
      params: {
        action: '*',
        filters: [
          ['a', 'eq', 'x,y', true],
          ['b', 'gte', '3', false],
        ],
      },
    });
    expect(parseSubscription({ table: 'tickets' })).toMatchObject({
      ok: true,
      params: { schema: 'public', table: 'tickets' },
    });
    expect(parseSubscription({ schema: 'public' })).toMatchObject({ ok: true, params: { table: '*' } });
    expect(parseSubscription({ schema: 'public', table: 't', filter: 'a=foo.1' })).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: ["foo", "1"]',
    });
    expect(parseSubscription({ schema: 'public', table: 't', filter: 'a=in.1,2' })).toMatchObject({ ok: false });
    expect(parseSubscription({ schema: '*', select: ['id'] })).toMatchObject({
      ok: false,
      error: 'Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name.',
    });
    if (parsed.ok)
      expect(paramsToLog(parsed.params)).toBe(
        'event: *, schema: public, table: t, filters: [{"a", "eq", "x,y", true}, {"b", "gte", "3", false}], select: nil',
      );
  });

  it('gives equal entries equal ids whatever the key order', () => {
    const a = subscriptionId({ event: '*', schema: 'public', table: 't' });
    expect(a).toBe(subscriptionId({ table: 't', schema: 'public', event: '*' }));
    expect(a).not.toBe(subscriptionId({ event: 'INSERT', schema: 'public', table: 't' }));
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(2 ** 27);
  });
});

describe('rate counter', () => {
  it('averages events per second over the buckets and trips at the limit', () => {
    const c = new RateCounter(10);
    c.add(49);
    c.tick(); // 49 in 5 s
    expect([c.avg, c.triggered]).toEqual([9.8, false]);
    c.add(51);
    c.tick(); // 100 in 10 s
    expect([c.avg, c.triggered]).toEqual([10, true]);
    c.tick();
    expect(c.triggered).toBe(false);
  });
});

describe("postgres_changes' filters read without Postgres", () => {
  const relation = {
    id: 1,
    schema: 'public',
    table: 'messages',
    replicaIdentity: 'd',
    columns: [
      { name: 'ticket_id', typeOid: 2950, key: false },
      { name: 'number', typeOid: 23, key: false },
      { name: 'kind', typeOid: 25, key: false },
      { name: 'created_at', typeOid: 1184, key: false },
    ],
  };
  const row = {
    ticket_id: 'aaaaaaaa-0000-4000-8000-000000000001',
    number: '7',
    kind: 'note',
    created_at: '2026-11-29',
  };
  it('leaves out a row an eq filter certainly fails', () => {
    expect(surelyFiltersOut([['ticket_id', 'eq', 'aaaaaaaa-0000-4000-8000-000000000002', false]], relation, row)).toBe(
      true,
    );
    expect(surelyFiltersOut([['number', 'eq', '8', false]], relation, row)).toBe(true);
    expect(surelyFiltersOut([['kind', 'eq', 'reply', false]], relation, row)).toBe(true);
  });
  it('leaves to Postgres whatever may match: equal values, other operators and types, negation, absent columns', () => {
    expect(surelyFiltersOut([['ticket_id', 'eq', 'AAAAAAAA-0000-4000-8000-000000000001', false]], relation, row)).toBe(
      false,
    );
    expect(surelyFiltersOut([['number', 'eq', '07', false]], relation, row)).toBe(false);
    expect(surelyFiltersOut([['number', 'neq', '8', false]], relation, row)).toBe(false);
    expect(surelyFiltersOut([['kind', 'eq', 'reply', true]], relation, row)).toBe(false);
    expect(surelyFiltersOut([['created_at', 'eq', '2026-11-28', false]], relation, row)).toBe(false);
    expect(surelyFiltersOut([['body', 'eq', 'x', false]], relation, row)).toBe(false);
    expect(surelyFiltersOut([['number', 'eq', 'seven', false]], relation, row)).toBe(false);
  });
});
