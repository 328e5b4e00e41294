// The private channel `ticket:<id>` of the agent's ticket page (presence: who is viewing; broadcasts
// from the database: whose presence entry is whose, who is typing) is for the ticket's workspace
// members only, as its policies on realtime.messages say (supabase/schemas/70_realtime.sql); members
// track presence but can't broadcast, so a forging member is shown as nobody else
// (docs/decisions/037-presence-the-server-vouches-for.md); and a requester's changes reach them
// through postgres_changes on that channel as on any other.
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { type PresenceEntries, type Vouches, vouchedViewers } from '../../app/lib/realtime/vouched-presence.ts';
import { PEOPLE, openTicket, type Person } from '../support/db.ts';
import { subscribed } from '../support/realtime.ts';
import { waitFor } from '../../scripts/lib/wait.ts';

const db = dbFixture();
let ticket: { id: string; number: number };
const clients: SupabaseClient[] = [];

beforeAll(async () => {
  ticket = await openTicket(db, 'acmeCustomer', 'Live channel check');
});
afterAll(async () => {
  for (const c of clients) {
    await c.removeAllChannels();
    c.realtime.disconnect();
  }
});

async function realtimeAs(person: Person): Promise<SupabaseClient> {
  const token = await new SignJWT({ sub: PEOPLE[person].id, role: 'authenticated', aud: 'authenticated' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(db.stack.jwtSecret));
  const client = createClient(db.stack.apiUrl, db.stack.anonKey, { accessToken: async () => token });
  clients.push(client);
  return client;
}

function ticketChannel(
  client: SupabaseClient,
  person: Person,
  topic = `ticket:${ticket.id}`,
  key: string = PEOPLE[person].id,
): RealtimeChannel {
  // With a presence listener, as the page has: the server then sends the presence state (and with it
  // the channel's own entries).
  return client
    .channel(topic, { config: { private: true, presence: { key } } })
    .on('presence', { event: 'sync' }, () => undefined);
}

/** What the ticket page keeps from its channel (app/components/live/live-ticket.tsx). */
function watch(channel: RealtimeChannel) {
  const seen = {
    entries: {} as PresenceEntries,
    vouches: [] as Vouches,
    typing: [] as unknown[],
    bodies: [] as string[],
  };
  channel
    .on('presence', { event: 'sync' }, () => {
      seen.entries = channel.presenceState() as PresenceEntries;
    })
    .on('broadcast', { event: 'viewer' }, ({ payload }) => seen.vouches.push([payload.presence_ref, payload.user_id]))
    .on('broadcast', { event: 'typing' }, ({ payload }) => seen.typing.push(payload))
    .on(
      'postgres_changes',
      { event: 'INSERT', schema: 'public', table: 'messages', filter: `ticket_id=eq.${ticket.id}` },
      (change) => seen.bodies.push((change.new as { body: string }).body),
    );
  return seen;
}

const vouched = (seen: ReturnType<typeof watch>, ref: string, person: Person) =>
  seen.vouches.some(([r, user]) => r === ref && user === PEOPLE[person].id);

/** Tracks presence as the page does and tells the database which entry is its own (the first under its key). */
async function trackAndAnnounce(client: SupabaseClient, channel: RealtimeChannel, key: string) {
  expect(await channel.track({})).toBe('ok');
  const mine = await waitFor(
    'my own entry',
    () => channel.presenceState()[key]?.[0] as { presence_ref: string } | undefined,
  );
  const { error } = await client.rpc('announce_ticket_viewer', {
    p_ticket_id: ticket.id,
    p_presence_ref: mine.presence_ref,
  });
  expect(error).toBeNull();
  return mine.presence_ref;
}

describe('the live channel of a ticket', () => {
  it.each<Person>(['acmeAgent', 'acmeAdmin'])('lets %s, a member of its workspace, join', async (person) => {
    const channel = await subscribed(ticketChannel(await realtimeAs(person), person));
    expect(channel.state).toBe('joined');
  });

  // Refused joins are answered after 5 s (upstream's back-off), so the cases run side by side.
  it('refuses requesters, other workspaces and a topic that names no ticket (without an error from the policy)', async () => {
    const refusals: [Person, string?][] = [
      ['acmeCustomer'],
      ['acmeCustomer2'],
      ['globexAgent'],
      ['globexAdmin'],
      ['acmeAgent', 'ticket:not-a-uuid'],
    ];
    const results = await Promise.allSettled(
      refusals.map(async ([person, topic]) => subscribed(ticketChannel(await realtimeAs(person), person, topic))),
    );
    for (const [i, result] of results.entries()) {
      expect(result.status, refusals[i].join(' ')).toBe('rejected');
      expect(String((result as PromiseRejectedResult).reason)).toMatch(
        /Unauthorized: You do not have permissions to read from this Channel topic/,
      );
    }
  });

  it("shows members who is viewing and typing, as the database vouches, and the requester's replies", async () => {
    const watcher = ticketChannel(await realtimeAs('acmeAgent'), 'acmeAgent');
    const seen = watch(watcher);
    await subscribed(watcher);
    const client = await realtimeAs('acmeAgent2');
    const other = await subscribed(ticketChannel(client, 'acmeAgent2'));
    await trackAndAnnounce(client, other, PEOPLE.acmeAgent2.id);
    await waitFor('the other agent shown as viewing', () =>
      vouchedViewers(seen.entries, seen.vouches, PEOPLE.acmeAgent.id).includes(PEOPLE.acmeAgent2.id),
    );
    const { error: typingError } = await client.rpc('signal_ticket_typing', {
      p_ticket_id: ticket.id,
      p_kind: 'reply',
    });
    expect(typingError).toBeNull();
    await waitFor('the typing signal', () => seen.typing.length === 1);
    expect(seen.typing).toEqual([expect.objectContaining({ user_id: PEOPLE.acmeAgent2.id, kind: 'reply' })]);

    const customer = await db.as('acmeCustomer');
    const { error } = await customer.rpc('post_message', { p_ticket_id: ticket.id, p_body: 'Any news?' });
    expect(error).toBeNull();
    await waitFor('the requester reply', () => seen.bodies.includes('Any news?'));
  });

  it('shows a forging member only as themselves: an entry under another’s id, typing in their name, their entry claimed', async () => {
    const [admin, victim, forgerId] = [PEOPLE.acmeAdmin.id, PEOPLE.acmeAgent.id, PEOPLE.acmeAgent2.id];
    const watcher = ticketChannel(await realtimeAs('acmeAdmin'), 'acmeAdmin');
    const seen = watch(watcher);
    await subscribed(watcher);
    // acmeAgent2 tracks under acmeAgent's id (what a page keyed by user id showed as acmeAgent) and announces it.
    const forging = await realtimeAs('acmeAgent2');
    const forger = await subscribed(ticketChannel(forging, 'acmeAgent2', undefined, victim));
    const forgedRef = await trackAndAnnounce(forging, forger, victim);
    await waitFor('the announcement of the forged entry', () => vouched(seen, forgedRef, 'acmeAgent2'));
    expect(Object.keys(seen.entries)).toContain(victim);
    expect(vouchedViewers(seen.entries, seen.vouches, admin)).toEqual([forgerId]);
    // A typing broadcast in the victim's name is dropped (members may not broadcast); the RPC speaks for its caller.
    await forger.send({ type: 'broadcast', event: 'typing', payload: { user_id: victim, kind: 'note' } });
    const signalled = await forging.rpc('signal_ticket_typing', { p_ticket_id: ticket.id, p_kind: 'note' });
    expect(signalled.error).toBeNull();
    await waitFor('the typing signal from the database', () => seen.typing.length === 1);
    expect(seen.typing).toEqual([expect.objectContaining({ user_id: forgerId, kind: 'note' })]);

    // The victim really opens the ticket (a page's key is its own): shown; the forger claims that entry too.
    const real = await realtimeAs('acmeAgent');
    const pageKey = crypto.randomUUID();
    const victimChannel = await subscribed(ticketChannel(real, 'acmeAgent', undefined, pageKey));
    const realRef = await trackAndAnnounce(real, victimChannel, pageKey);
    await waitFor('the victim shown', () => vouchedViewers(seen.entries, seen.vouches, admin).includes(victim));
    await forging.rpc('announce_ticket_viewer', { p_ticket_id: ticket.id, p_presence_ref: realRef });
    await waitFor('the forger’s claim', () => vouched(seen, realRef, 'acmeAgent2'));
    expect(vouchedViewers(seen.entries, seen.vouches, admin).sort()).toEqual([forgerId, victim].sort());
    // The victim leaves: the forger's entry under their id is left, and shows the forger alone.
    await real.removeChannel(victimChannel);
    await waitFor('the victim gone', () => !seen.entries[pageKey]);
    expect(seen.entries[victim]?.map((e) => e.presence_ref)).toEqual([forgedRef]);
    expect(vouchedViewers(seen.entries, seen.vouches, admin)).toEqual([forgerId]);
  });

  it('signals only for members of the ticket’s workspace, in their own name', async () => {
    for (const person of ['acmeCustomer', 'globexAgent', 'globexAdmin'] as const) {
      const c = await db.as(person);
      const typing = await c.rpc('signal_ticket_typing', { p_ticket_id: ticket.id, p_kind: 'reply' });
      const viewer = await c.rpc('announce_ticket_viewer', { p_ticket_id: ticket.id, p_presence_ref: 'x' });
      expect({ person, typing: typing.error?.message, viewer: viewer.error?.message }).toEqual({
        person,
        typing: 'not_found',
        viewer: 'not_found',
      });
    }
    const anon = await db.anon().rpc('signal_ticket_typing', { p_ticket_id: ticket.id, p_kind: 'reply' });
    expect(anon.error).not.toBeNull();
    const agent = await db.as('acmeAgent');
    expect((await agent.rpc('signal_ticket_typing', { p_ticket_id: ticket.id, p_kind: 'shout' })).error?.message).toBe(
      'bad_request',
    );
  });
});
