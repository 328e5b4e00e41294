// Broadcast (docs/reference/realtime.md §4): channels joined to one topic, and the fan-out of a message to
// them. A public and a private channel of the same name are different topics. Messages from a v2
// client, the per-event REST API and the database travel as user broadcasts (kind 4 to v2 clients);
// the batch REST API's go out as JSON to everyone, as upstream's dispatcher does.
import type { Policies } from './authorization.ts';
import { encode, encodeUserBroadcast, type UserBroadcast, type Vsn } from './serializer.ts';
import type { Claims } from './tokens.ts';

/** A joined channel as fan-out, presence and postgres_changes see it (channel.ts's Channel). */
export interface Member {
  readonly id: number;
  readonly topic: string;
  /** Its topic's key: public and private channels of one name are different topics. */
  readonly key: string;
  readonly isPrivate: boolean;
  readonly selfBroadcast: boolean;
  readonly presenceKey: string;
  readonly conn: { readonly vsn: Vsn };
  readonly policies: Policies | null;
  readonly claims: Claims;
  /** The claims as JSON: members with equal claims share one RLS check per change. */
  readonly claimsKey: string;
  readonly closed: boolean;
  /** A push on the channel (fanOut: without join_ref, as upstream's fan-outs). */
  send(event: string, payload: Record<string, unknown>, opts?: { fanOut?: boolean }): void;
  /** An already encoded broadcast frame. */
  deliverFrame(frame: string | Buffer): void;
}

export const topicKey = (isPrivate: boolean, subTopic: string) => `${isPrivate ? 'private' : 'public'}:${subTopic}`;

export class Hub {
  private topics = new Map<string, Set<Member>>();

  add(channel: Member) {
    let members = this.topics.get(channel.key);
    if (!members) this.topics.set(channel.key, (members = new Set()));
    members.add(channel);
  }

  remove(channel: Member) {
    const members = this.topics.get(channel.key);
    members?.delete(channel);
    if (members?.size === 0) this.topics.delete(channel.key);
  }

  members(key: string): Iterable<Member> {
    return this.topics.get(key) ?? [];
  }
}

export type Outgoing = { json: Record<string, unknown> } | { user: UserBroadcast };

/**
 * Sends a broadcast to the topic's channels: all of them, or all but `from` (broadcast.self false).
 * Private channels get it only with broadcast read permission. Each copy counts as an event.
 */
export function fanOut(hub: Hub, key: string, message: Outgoing, from?: Member) {
  const encoded = new Map<Vsn, string | Buffer | null>();
  for (const channel of [...hub.members(key)]) {
    if (channel === from && !channel.selfBroadcast) continue;
    if (channel.isPrivate && channel.policies?.broadcast.read !== true) continue;
    const vsn = channel.conn.vsn;
    if (!encoded.has(vsn)) {
      const topic = channel.topic;
      encoded.set(
        vsn,
        'json' in message
          ? encode(vsn, { joinRef: null, ref: null, topic, event: 'broadcast', payload: message.json })
          : encodeUserBroadcast(vsn, { ...message.user, topic }),
      );
    }
    const frame = encoded.get(vsn);
    if (frame !== null && frame !== undefined) channel.deliverFrame(frame);
  }
}
