// Mentions on the real stack (issue 27 item 8; supabase/schemas/87_mentions.sql): "@Name" in an internal
// note records and tells that member (the bell; email per their settings), by full name, a first name
// only they have, or their email's local part; a public reply, the writer, another workspace's member
// and a longer name tell nobody; members read the mentions, customers nothing, and nobody writes them; a
// mention stays on its note's ticket when tickets merge (the inbox's Mentions count reads it there).
import { describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, PEOPLE, openTicket, type Person } from '../support/db.ts';

describe('mentions', () => {
  const db = dbFixture();

  /** The members a new note (or reply) by the agent on a fresh ticket told, and whom it recorded. */
  async function post(body: string, kind: 'note' | 'reply' = 'note', by: Person = 'acmeAgent') {
    const t = await openTicket(db, 'acmeCustomer', `Mention ${body}`);
    const { error } = await (await db.as(by)).rpc('post_message', { p_ticket_id: t.id, p_body: body, p_kind: kind });
    expect(error).toBeNull();
    const told = await db.sql(
      `select recipient_id, actor_id, message_id from notifications where ticket_id = $1 and kind = 'mention' order by recipient_id`,
      [t.id],
    );
    const recorded = await db.sql(
      `select mm.user_id, mm.workspace_id from message_mentions mm join messages m on m.id = mm.message_id
        where m.ticket_id = $1 order by mm.user_id`,
      [t.id],
    );
    return { ticket: t, told: told.rows, recorded: recorded.rows.map((r) => r.user_id as string) };
  }

  it('tells the member a note names, by full name, unique first name or email local part, once each', async () => {
    const full = await post('@Sam Support could you check the invoice?');
    expect(full.told).toEqual([
      expect.objectContaining({ recipient_id: PEOPLE.acmeAgent2.id, actor_id: PEOPLE.acmeAgent.id }),
    ]);
    expect(full.recorded).toEqual([PEOPLE.acmeAgent2.id]);

    const first = await post('Thanks @sam, and @ADA please approve.');
    expect(first.recorded).toEqual([PEOPLE.acmeAdmin.id, PEOPLE.acmeAgent2.id]);
    expect(first.told.map((n) => n.recipient_id)).toEqual([PEOPLE.acmeAdmin.id, PEOPLE.acmeAgent2.id]);

    const local = await post('(cc @agent2) twice: @agent2.');
    expect(local.recorded).toEqual([PEOPLE.acmeAgent2.id]);
    expect(local.told).toHaveLength(1);
  });

  it('tells nobody for a public reply, the writer, an address, a longer name or another workspace', async () => {
    expect((await post('@Sam Support see this', 'reply')).told).toEqual([]);
    expect((await post('Note to self, @Alex Agent')).recorded).toEqual([]);
    const none = await post('Wrote to sam@acme.test, asked @Samuel and @Grace Globex; @Ada_ too.');
    expect(none.recorded).toEqual([]);
    expect(none.told).toEqual([]);
  });

  it('lets members read the workspace’s mentions and nobody else anything, and nobody write them', async () => {
    const { ticket } = await post('@Sam Support please look');
    const { rows } = await db.sql(
      `select mm.message_id from message_mentions mm join messages m on m.id = mm.message_id where m.ticket_id = $1`,
      [ticket.id],
    );
    const id = rows[0].message_id as string;
    for (const person of ['acmeAdmin', 'acmeAgent2'] as const) {
      const { data } = await (await db.as(person)).from('message_mentions').select('user_id').eq('message_id', id);
      expect(data, person).toEqual([{ user_id: PEOPLE.acmeAgent2.id }]);
    }
    for (const person of ['acmeCustomer', 'globexAgent'] as const) {
      const { data } = await (await db.as(person)).from('message_mentions').select('user_id').eq('message_id', id);
      expect(data, person).toEqual([]);
    }
    const write = await (await db.as('acmeAgent'))
      .from('message_mentions')
      .insert({ message_id: id, user_id: PEOPLE.acmeAdmin.id, workspace_id: ACME });
    expect(write.error?.code).toBe('42501');
    expect(
      (await (await db.as('acmeAgent')).from('message_mentions').delete().eq('message_id', id).select()).error?.code,
    ).toBe('42501');
  });

  it('keeps each mention on its note’s ticket through a merge, and the Mentions count with it', async () => {
    const mentioned = async () => {
      const { data, error } = await (await db.as('acmeAgent2')).rpc('inbox', { p_slug: 'acme' });
      expect(error).toBeNull();
      return (data as { counts: { mentions: number } }).counts.mentions;
    };
    const onTicket = async () =>
      (
        await db.sql(
          `select mm.ticket_id = m.ticket_id as same from message_mentions mm join messages m on m.id = mm.message_id
            where mm.user_id = $1`,
          [PEOPLE.acmeAgent2.id],
        )
      ).rows.map((r) => r.same as boolean);
    const a = await post('@Sam Support first look');
    const b = await post('@Sam Support second look');
    const before = await mentioned();
    expect(await onTicket()).not.toContain(false);
    const { error } = await (await db.as('acmeAgent')).rpc('merge_tickets', {
      p_ticket_id: a.ticket.id,
      p_into: b.ticket.id,
    });
    expect(error).toBeNull();
    // Both notes are on b now: one ticket names Sam where there were two.
    expect(await onTicket()).not.toContain(false);
    expect(await mentioned()).toBe(before - 1);
  });
});
