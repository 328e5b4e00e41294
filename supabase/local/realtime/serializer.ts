// Phoenix serializers as Realtime speaks them (docs/reference/realtime.md §1.2, §4.2): vsn 1.0.0 sends JSON
// objects, 2.0.0 JSON arrays [join_ref, ref, topic, event, payload] plus binary user broadcasts
// (kind 3 in, kind 4 out). Pure functions, no I/O.

export type Vsn = '1.0.0' | '2.0.0';

export interface Message {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
}

/** A broadcast whose payload travels as bytes: from a v2 client, the per-event REST API or the database. */
export interface UserBroadcast {
  topic: string;
  event: string;
  encoding: 'json' | 'binary';
  payload: Buffer;
  metadata: Record<string, unknown> | null;
}

export type Inbound =
  | { kind: 'message'; message: Message }
  | { kind: 'user-broadcast'; joinRef: string | null; ref: string | null; broadcast: UserBroadcast };

export class InvalidMessage extends Error {}

const USER_BROADCAST_PUSH = 3;
const USER_BROADCAST = 4;

/** Phoenix accepts `~> 1.0.0` and `~> 2.0.0`; no vsn means 1.0.0. */
export function negotiate(vsn: string | null): Vsn | null {
  if (vsn === null || /^1\.0\.\d+$/.test(vsn)) return '1.0.0';
  if (/^2\.0\.\d+$/.test(vsn)) return '2.0.0';
  return null;
}

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function decode(vsn: Vsn, data: Buffer, isBinary: boolean): Inbound {
  if (isBinary) {
    if (vsn !== '2.0.0') throw new InvalidMessage('binary frames need vsn 2.0.0');
    return decodeBinary(data);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch {
    throw new InvalidMessage('not JSON');
  }
  let joinRef: unknown, ref: unknown, topic: unknown, event: unknown, payload: unknown;
  if (vsn === '2.0.0') {
    if (!Array.isArray(parsed) || parsed.length < 5) throw new InvalidMessage('expected V2 array');
    [joinRef, ref, topic, event, payload] = parsed;
  } else {
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidMessage('expected V1 object');
    ({ join_ref: joinRef, ref, topic, event, payload } = parsed as Record<string, unknown>);
  }
  if (typeof topic !== 'string' || typeof event !== 'string') throw new InvalidMessage('topic and event required');
  return {
    kind: 'message',
    message: {
      joinRef: str(joinRef),
      ref: str(ref),
      topic,
      event,
      payload:
        payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {},
    },
  };
}

function decodeBinary(data: Buffer): Inbound {
  if (data[0] !== USER_BROADCAST_PUSH || data.length < 7)
    throw new InvalidMessage(`unsupported binary kind ${data[0]}`);
  const sizes = [data[1]!, data[2]!, data[3]!, data[4]!, data[5]!];
  const encoding = data[6] === 0 ? 'binary' : 'json';
  let offset = 7;
  const [joinRef, ref, topic, event, metadata] = sizes.map((n) => {
    if (offset + n > data.length) throw new InvalidMessage('truncated frame');
    const s = data.subarray(offset, offset + n).toString('utf8');
    offset += n;
    return s;
  }) as [string, string, string, string, string];
  let meta: Record<string, unknown> | null = null;
  if (metadata) {
    try {
      meta = JSON.parse(metadata);
    } catch {
      throw new InvalidMessage('metadata is not JSON');
    }
  }
  return {
    kind: 'user-broadcast',
    joinRef: joinRef || null,
    ref: ref || null,
    broadcast: { topic, event, encoding, payload: Buffer.from(data.subarray(offset)), metadata: meta },
  };
}

/** A JSON message: V1 objects carry no join_ref (Phoenix encode_v1_fields_only). */
export function encode(vsn: Vsn, m: Message): string {
  if (vsn === '2.0.0') return JSON.stringify([m.joinRef, m.ref, m.topic, m.event, m.payload]);
  return JSON.stringify({ topic: m.topic, event: m.event, payload: m.payload, ref: m.ref });
}

/** The `broadcast` message a JSON client sees for a user broadcast; null when its payload is bytes. */
export function userBroadcastAsJson(b: UserBroadcast): Record<string, unknown> | null {
  if (b.encoding !== 'json') return null;
  const payload: Record<string, unknown> = {
    event: b.event,
    payload: JSON.parse(b.payload.toString('utf8')),
    type: 'broadcast',
  };
  if (b.metadata) payload.meta = b.metadata;
  return payload;
}

/** Kind 4 for v2 clients; the JSON `broadcast` for v1 (nothing when the payload is bytes). */
export function encodeUserBroadcast(vsn: Vsn, b: UserBroadcast): string | Buffer | null {
  if (vsn === '1.0.0') {
    const payload = userBroadcastAsJson(b);
    return payload && encode(vsn, { joinRef: null, ref: null, topic: b.topic, event: 'broadcast', payload });
  }
  const topic = Buffer.from(b.topic);
  const event = Buffer.from(b.event);
  const metadata = Buffer.from(b.metadata ? JSON.stringify(b.metadata) : '');
  if (topic.length > 255 || event.length > 255 || metadata.length > 255) return null;
  const header = Buffer.from([
    USER_BROADCAST,
    topic.length,
    event.length,
    metadata.length,
    b.encoding === 'json' ? 1 : 0,
  ]);
  return Buffer.concat([header, topic, event, metadata, b.payload]);
}
