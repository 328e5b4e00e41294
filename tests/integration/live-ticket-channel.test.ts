// The private channel `ticket:<id>` of the agent's ticket page (presence: who is viewing; broadcast:
// who is typing) is for the ticket's workspace members only, as its policies on realtime.messages
// say (supabase/schemas/70_realtime.sql); and a requester's changes reach
// them through postgres_changes on that channel as on any other.
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { PEOPLE, openTicket, type Person } from '../support/db.ts';
import { subscribed } from '../support/realtime.ts';
import { waitFor } from '../support/wait.ts';

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

function ticketChannel(client: SupabaseClient, person: Person, topic = `ticket:${ticket.id}`): RealtimeChannel {
  return client.channel(topic, { config: { private: true, presence: { key: PEOPLE[person].id } } });
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

  it("shows members each other's presence and typing signals, and the requester's replies", async () => {
    const seen: { here: string[]; typing: unknown[]; bodies: string[] } = { here: [], typing: [], bodies: [] };
    const watcher = ticketChannel(await realtimeAs('acmeAgent'), 'acmeAgent')
      .on('presence', { event: 'sync' }, () => {
        seen.here = Object.keys(watcher.presenceState());
      })
      .on('broadcast', { event: 'typing' }, ({ payload }) => seen.typing.push(payload))
      .on(
        'postgres_changes',
        { event: 'INSERT', schema: 'public', table: 'messages', filter: `ticket_id=eq.${ticket.id}` },
        (change) => seen.bodies.push((change.new as { body: string }).body),
      );
    await subscribed(watcher);
    const other = await subscribed(ticketChannel(await realtimeAs('acmeAgent2'), 'acmeAgent2'));
    expect(await other.track({ user_id: PEOPLE.acmeAgent2.id })).toBe('ok');
    await waitFor('the other agent present', () => seen.here.includes(PEOPLE.acmeAgent2.id));
    expect(
      await other.send({
        type: 'broadcast',
        event: 'typing',
        payload: { user_id: PEOPLE.acmeAgent2.id, kind: 'reply' },
      }),
    ).toBe('ok');
    await waitFor('the typing signal', () => seen.typing.length === 1);
    expect(seen.typing).toEqual([{ user_id: PEOPLE.acmeAgent2.id, kind: 'reply' }]);

    const customer = await db.as('acmeCustomer');
    const { error } = await customer.rpc('post_message', { p_ticket_id: ticket.id, p_body: 'Any news?' });
    expect(error).toBeNull();
    await waitFor('the requester reply', () => seen.bodies.includes('Any news?'));
  });
});
