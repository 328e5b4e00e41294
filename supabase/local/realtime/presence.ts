// Presence as Phoenix.Presence shapes it (docs/reference/realtime.md §5): per topic, keys with a list of
// metas, one meta per tracking channel, each with an opaque phx_ref. Changes go out as presence_diff
// {joins, leaves} to the topic's channels, the tracker included; an update is a leave of the old meta
// and a join of the new one carrying phx_ref_prev.
import { randomBytes } from 'node:crypto';
import type { Hub, Member } from './broadcast.ts';

type Meta = Record<string, unknown> & { phx_ref: string; phx_ref_prev?: string };
type Grouped = Record<string, { metas: Meta[] }>;

const ref = () => randomBytes(12).toString('base64url');

export class Presence {
  /** topic key → presence key → tracking channel → its meta */
  private topics = new Map<string, Map<string, Map<Member, Meta>>>();

  constructor(
    private hub: Hub,
    private onDiffs: (count: number) => void,
  ) {}

  /** The whole state, as presence_state sends it. */
  state(topicKey: string): Grouped {
    const out: Grouped = {};
    for (const [key, metas] of this.topics.get(topicKey) ?? []) out[key] = { metas: [...metas.values()] };
    return out;
  }

  track(channel: Member, payload: Record<string, unknown>) {
    let keys = this.topics.get(channel.key);
    if (!keys) this.topics.set(channel.key, (keys = new Map()));
    let metas = keys.get(channel.presenceKey);
    if (!metas) keys.set(channel.presenceKey, (metas = new Map()));
    const previous = metas.get(channel);
    const meta: Meta = { ...payload, phx_ref: ref() };
    if (previous) meta.phx_ref_prev = previous.phx_ref;
    metas.set(channel, meta);
    this.diff(
      channel.key,
      { [channel.presenceKey]: { metas: [meta] } },
      previous ? { [channel.presenceKey]: { metas: [previous] } } : {},
    );
  }

  untrack(channel: Member) {
    const keys = this.topics.get(channel.key);
    const metas = keys?.get(channel.presenceKey);
    const meta = metas?.get(channel);
    if (!meta || !keys || !metas) return;
    metas.delete(channel);
    if (!metas.size) keys.delete(channel.presenceKey);
    if (!keys.size) this.topics.delete(channel.key);
    this.diff(channel.key, {}, { [channel.presenceKey]: { metas: [meta] } });
  }

  /** Public channels all get diffs; private ones only with presence read permission. */
  private diff(topicKey: string, joins: Grouped, leaves: Grouped) {
    let count = 0;
    for (const channel of [...this.hub.members(topicKey)]) {
      if (channel.isPrivate && channel.policies?.presence.read !== true) continue;
      channel.send('presence_diff', { joins, leaves }, { fanOut: true });
      count++;
    }
    this.onDiffs(count);
  }
}
