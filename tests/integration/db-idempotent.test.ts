// A form sent twice (double click, resubmitted POST) writes once: post_message and create_ticket
// give the row of the first send back for a repeated key.
import { describe, expect, it } from 'vitest';
import { openTicket, PEOPLE } from '../support/db.ts';
import { dbFixture } from '../support/fixture.ts';

describe('idempotent writes', () => {
  const db = dbFixture();

  it('posts one note for a key sent twice, and gives both sends the same message', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Two notes?');
    const agent = await db.as('acmeAgent');
    const key = crypto.randomUUID();
    const send = () =>
      agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Checked the logs.', p_kind: 'note', p_client_key: key });
    const first = await send();
    const second = await send();
    expect(first.error).toBeNull();
    expect(second.error).toBeNull();
    expect(second.data).toEqual(first.data);
    const { rows } = await db.sql(`select count(*)::int as n from messages where ticket_id = $1 and kind = 'note'`, [
      t.id,
    ]);
    expect(rows[0].n).toBe(1);
  });

  it("gives an agent's repeated reply its own message, not ticket_changed", async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Double click');
    const { rows } = await db.sql(`select id from messages where ticket_id = $1`, [t.id]);
    const agent = await db.as('acmeAgent');
    const args = {
      p_ticket_id: t.id,
      p_body: 'On it.',
      p_last_seen_message_id: rows[0].id,
      p_client_key: crypto.randomUUID(),
    };
    const results = await Promise.all([agent.rpc('post_message', args), agent.rpc('post_message', args)]);
    for (const r of results) expect(r.error).toBeNull();
    expect(results[0].data.id).toBe(results[1].data.id);
    const replies = await db.sql(`select count(*)::int as n from messages where ticket_id = $1`, [t.id]);
    expect(replies.rows[0].n).toBe(2);
    // Without a key, the second send is news to its writer: the traffic cop stops it.
    const again = await agent.rpc('post_message', { ...args, p_client_key: undefined });
    expect(again.error).toMatchObject({ message: 'ticket_changed' });
  });

  it("keeps one person's key apart from another's", async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Same key, two writers');
    const key = crypto.randomUUID();
    const [agent, customer] = await Promise.all([db.as('acmeAgent'), db.as('acmeCustomer')]);
    const a = await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'From the team.', p_client_key: key });
    const c = await customer.rpc('post_message', { p_ticket_id: t.id, p_body: 'From me.', p_client_key: key });
    expect(a.error).toBeNull();
    expect(c.error).toBeNull();
    expect(c.data.id).not.toBe(a.data.id);
    expect(c.data.body).toBe('From me.');
  });

  it('opens one request for a new-request form sent twice at once', async () => {
    const customer = await db.as('acmeCustomer2');
    const args = {
      p_workspace_slug: 'acme',
      p_subject: 'Sent twice',
      p_body: 'Hello?',
      p_client_key: crypto.randomUUID(),
    };
    const results = await Promise.all([customer.rpc('create_ticket', args), customer.rpc('create_ticket', args)]);
    for (const r of results) expect(r.error).toBeNull();
    expect(results[1].data).toEqual(results[0].data);
    const { rows } = await db.sql(
      `select count(*)::int as n, (select count(*)::int from messages m join tickets t on t.id = m.ticket_id where t.subject = 'Sent twice') as m
         from tickets where subject = 'Sent twice'`,
    );
    expect(rows[0]).toEqual({ n: 1, m: 1 });
    // Another person's form with the same key opens its own request.
    const other = await (await db.as('acmeCustomer')).rpc('create_ticket', args);
    expect(other.error).toBeNull();
    expect(other.data[0].id).not.toBe(results[0].data[0].id);
  });

  it('of two agents assigning from one view of the ticket at once, one writes and the other matches nothing', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Who takes it?');
    const people = ['acmeAgent', 'acmeAgent2'] as const;
    // The sidebar's optimistic check: write only while the assignee is the one the form showed (nobody).
    const results = await Promise.all(
      people.map(async (p) =>
        (await db.as(p))
          .from('tickets')
          .update({ assignee_id: PEOPLE[p].id })
          .eq('id', t.id)
          .is('assignee_id', null)
          .select('id'),
      ),
    );
    for (const r of results) expect(r.error).toBeNull();
    const written = results.map((r) => r.data?.length);
    expect(written.sort()).toEqual([0, 1]);
    const { rows } = await db.sql(
      `select t.assignee_id, (select count(*)::int from ticket_events e where e.ticket_id = t.id and e.type = 'assignee') as events
         from tickets t where t.id = $1`,
      [t.id],
    );
    const winner = people[results.findIndex((r) => r.data?.length === 1)];
    expect(rows[0]).toEqual({ assignee_id: PEOPLE[winner].id, events: 1 });
  });
});
