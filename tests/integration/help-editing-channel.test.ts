// The article editor's private channel `help-article:<id>` ("Also editing: …",
// docs/product.md#the-help-center-for-the-team): members of the article's workspace track presence there but can't
// broadcast, and who is who comes from the database (announce_help_editor, with the caller's auth.uid()), so a member
// who tracks under another's id, or broadcasts in their name, is shown as nobody but themselves
// (docs/decisions/037-presence-the-server-vouches-for.md; supabase/schemas/65_help_center.sql).
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PresenceEntries, type Vouches, vouchedViewers } from '../../app/lib/realtime/vouched-presence.ts';
import { waitFor } from '../../scripts/lib/wait.ts';
import { ACME, PEOPLE, type Person } from '../support/db.ts';
import { dbFixture } from '../support/fixture.ts';
import { realtimeClient, subscribed, type TestClient, userToken } from '../support/realtime.ts';

const db = dbFixture();
let articleId: number;
const clients: TestClient[] = [];

beforeAll(async () => {
  const { rows } = await db.sql(
    `insert into help_articles (workspace_id, title, body) values ($1, 'Being edited', 'Draft text.') returning id::int`,
    [ACME],
  );
  articleId = rows[0].id;
});
afterAll(async () => {
  for (const c of clients) await c.close();
});

/** A supabase-js client signed in as `person` (a token as Auth issues it). */
async function realtimeAs(person: Person): Promise<SupabaseClient> {
  const client = realtimeClient(db.stack, await userToken(db.stack, PEOPLE[person].id));
  clients.push(client);
  return client.supabase;
}

/** The editor's channel as the page joins it (app/components/live/live-editors.tsx), and what it keeps. */
function editorChannel(client: SupabaseClient, key: string) {
  const seen = { entries: {} as PresenceEntries, vouches: [] as Vouches };
  const channel: RealtimeChannel = client
    .channel(`help-article:${articleId}`, { config: { private: true, presence: { key } } })
    .on('presence', { event: 'sync' }, () => {
      seen.entries = channel.presenceState() as PresenceEntries;
    })
    .on('broadcast', { event: 'editor' }, ({ payload }) => seen.vouches.push([payload.presence_ref, payload.user_id]));
  return { channel, seen };
}

/** Tracks presence and announces the first entry under `key` as the caller's. */
async function trackAndAnnounce(client: SupabaseClient, channel: RealtimeChannel, key: string) {
  expect(await channel.track({})).toBe('ok');
  const mine = await waitFor(
    'my own entry',
    () => channel.presenceState()[key]?.[0] as { presence_ref: string } | undefined,
  );
  const { error } = await client.rpc('announce_help_editor', {
    p_article_id: articleId,
    p_presence_ref: mine.presence_ref,
  });
  expect(error).toBeNull();
  return mine.presence_ref;
}

describe('the editing channel of a help article', () => {
  it('shows another editor as the database vouches, and a forging member only as themselves', async () => {
    const [admin, victim, forgerId] = [PEOPLE.acmeAdmin.id, PEOPLE.acmeAgent.id, PEOPLE.acmeAgent2.id];
    const watcher = editorChannel(await realtimeAs('acmeAdmin'), crypto.randomUUID());
    await subscribed(watcher.channel);
    const seen = watcher.seen;

    // The forger tracks under the victim's id (what a page keyed by user id showed as the victim),
    // announces that entry, and broadcasts an `editor` message in the victim's name.
    const forging = await realtimeAs('acmeAgent2');
    const forger = editorChannel(forging, victim);
    await subscribed(forger.channel);
    const forgedRef = await trackAndAnnounce(forging, forger.channel, victim);
    await forger.channel.send({
      type: 'broadcast',
      event: 'editor',
      payload: { presence_ref: forgedRef, user_id: victim },
    });
    await waitFor('the forged entry announced', () => seen.vouches.some(([ref]) => ref === forgedRef));
    await waitFor('the forged entry present', () => Boolean(seen.entries[victim]));
    expect(vouchedViewers(seen.entries, seen.vouches, admin)).toEqual([forgerId]);

    // The victim really opens the article: shown.
    const real = await realtimeAs('acmeAgent');
    const pageKey = crypto.randomUUID();
    const page = editorChannel(real, pageKey);
    await subscribed(page.channel);
    await trackAndAnnounce(real, page.channel, pageKey);
    await waitFor('the real editor shown', () => vouchedViewers(seen.entries, seen.vouches, admin).includes(victim));
    // Every vouch came from the database, in the caller's own name: never the forger's broadcast.
    expect(seen.vouches.filter(([ref]) => ref === forgedRef)).toEqual([[forgedRef, forgerId]]);
  });

  it('announces only for members of the article’s workspace', async () => {
    for (const person of ['acmeCustomer', 'globexAgent', 'globexAdmin'] as const) {
      const { error } = await (await db.as(person)).rpc('announce_help_editor', {
        p_article_id: articleId,
        p_presence_ref: 'x',
      });
      expect({ person, error: error?.message }).toEqual({ person, error: 'not_found' });
    }
    expect(
      (await db.anon().rpc('announce_help_editor', { p_article_id: articleId, p_presence_ref: 'x' })).error,
    ).not.toBeNull();
    const agent = await db.as('acmeAgent');
    expect(
      (await agent.rpc('announce_help_editor', { p_article_id: articleId, p_presence_ref: '' })).error?.message,
    ).toBe('bad_request');
  });
});
