// Ticket custom fields in the database (docs/product.md#customers-companies-and-ticket-fields), per role through
// PostgREST: admins define them, members fill them in, requesters read only the fields shown to them on their own
// tickets; each value fits its field; an agent's solve without a required field is refused (field_required).
import { randomUUID } from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, GLOBEX, openTicket } from '../support/db.ts';

type Role = 'acmeAdmin' | 'acmeAgent' | 'acmeCustomer' | 'globexAdmin' | 'anon';
const ROLES: Role[] = ['acmeAdmin', 'acmeAgent', 'acmeCustomer', 'globexAdmin', 'anon'];

describe('ticket custom fields', () => {
  const db = dbFixture();
  const clients = {} as Record<Role, SupabaseClient>;
  const label = (l: string) => `${l} ${randomUUID().slice(0, 6)}`;
  /** A field at Acme written straight into the database. */
  const field = async (
    kind: string,
    opts: { options?: string[]; required?: boolean; internal?: boolean; ws?: string } = {},
  ) =>
    (
      await db.sql(
        `insert into ticket_fields (workspace_id, label, kind, options, required_on_solve, internal)
         values ($1, $2, $3, $4, $5, $6) returning id, label`,
        [opts.ws ?? ACME, label(kind), kind, opts.options ?? [], opts.required ?? false, opts.internal ?? true],
      )
    ).rows[0] as { id: string; label: string };

  beforeAll(async () => {
    for (const r of ROLES) clients[r] = r === 'anon' ? db.anon() : await db.as(r);
  });

  describe('per role', () => {
    for (const role of ROLES) {
      const admin = role === 'acmeAdmin';
      const member = admin || role === 'acmeAgent';

      it(`${role}: ${admin ? 'defines' : 'may not define'} a field`, async () => {
        const l = label('Order');
        const { error } = await clients[role]
          .from('ticket_fields')
          .insert({ workspace_id: ACME, label: l, kind: 'text' });
        if (admin) expect(error).toBeNull();
        else expect(error?.code, role).toBe('42501');
      });

      it(`${role}: ${member ? 'reads every field' : 'reads no internal field'} of Acme`, async () => {
        const internal = await field('text');
        const { data } = await clients[role].from('ticket_fields').select('id').eq('id', internal.id);
        expect(data ?? []).toEqual(member ? [{ id: internal.id }] : []);
      });

      it(`${role}: ${member ? 'fills in' : 'may not fill in'} a ticket's field`, async () => {
        const f = await field('number');
        const ticket = await openTicket(db);
        const { error } = await clients[role].rpc('set_ticket_fields', {
          p_ticket_id: ticket.id,
          p_values: { [f.id]: '42' },
        });
        const { rows } = await db.sql('select value from ticket_field_values where ticket_id = $1', [ticket.id]);
        if (member) {
          expect(error).toBeNull();
          expect(rows).toEqual([{ value: '42' }]);
        } else {
          expect(error, role).not.toBeNull();
          expect(rows).toEqual([]);
        }
      });
    }
  });

  it('shows the requester only the values of fields shown to customers, on their own tickets', async () => {
    const shown = await field('text', { internal: false });
    const hidden = await field('text');
    const ticket = await openTicket(db, 'acmeCustomer');
    const other = await openTicket(db, 'acmeCustomer2');
    for (const t of [ticket, other])
      await clients.acmeAgent.rpc('set_ticket_fields', {
        p_ticket_id: t.id,
        p_values: { [shown.id]: 'Blue', [hidden.id]: 'Secret' },
      });
    const { data } = await clients.acmeCustomer
      .from('ticket_field_values')
      .select('ticket_id, value')
      .in('ticket_id', [ticket.id, other.id]);
    expect(data).toEqual([{ ticket_id: ticket.id, value: 'Blue' }]);
    const { data: list } = await clients.acmeCustomer.rpc('ticket_field_list', {
      p_slug: 'acme',
      p_number: ticket.number,
    });
    expect(list).toEqual([]);
  });

  it('stores each value in its field’s form and refuses one that does not fit', async () => {
    const number = await field('number');
    const date = await field('date');
    const dropdown = await field('dropdown', { options: ['Small', 'Large'] });
    const box = await field('checkbox');
    const ticket = await openTicket(db);
    const set = (values: Record<string, string | null>) =>
      clients.acmeAgent.rpc('set_ticket_fields', { p_ticket_id: ticket.id, p_values: values });
    expect(
      (await set({ [number.id]: ' 007.50 ', [date.id]: '2026-02-28', [dropdown.id]: 'Large', [box.id]: 'on' })).error,
    ).toBeNull();
    const values = async () =>
      Object.fromEntries(
        (await db.sql('select field_id, value from ticket_field_values where ticket_id = $1', [ticket.id])).rows.map(
          (r) => [r.field_id, r.value],
        ),
      );
    expect(await values()).toEqual({
      [number.id]: '7.50',
      [date.id]: '2026-02-28',
      [dropdown.id]: 'Large',
      [box.id]: 'true',
    });
    for (const [f, bad] of [
      [number, 'twelve'],
      [date, '2026-02-30'],
      [dropdown, 'Medium'],
    ] as const) {
      const { error } = await set({ [f.id]: bad });
      expect(error?.message).toBe('field_value_invalid');
      expect(error?.details).toBe(f.label);
    }
    // Cleared: an empty value removes it.
    expect((await set({ [box.id]: '' })).error).toBeNull();
    expect(Object.keys(await values())).not.toContain(box.id);
  });

  it('refuses a field of another workspace', async () => {
    const globex = await field('text', { ws: GLOBEX });
    const ticket = await openTicket(db);
    const { error } = await clients.acmeAgent.rpc('set_ticket_fields', {
      p_ticket_id: ticket.id,
      p_values: { [globex.id]: 'x' },
    });
    expect(error?.message).toBe('not_found');
  });

  it('refuses an agent’s solve without a required field, in every way of solving, and allows it once filled in', async () => {
    const required = await field('dropdown', { options: ['Bug', 'Question'], required: true });
    try {
      const ticket = await openTicket(db);
      const bySidebar = await clients.acmeAgent.from('tickets').update({ status: 'solved' }).eq('id', ticket.id);
      expect(bySidebar.error?.message).toBe('field_required');
      expect(bySidebar.error?.details).toBe(required.label);
      const byReply = await clients.acmeAgent.rpc('post_message', {
        p_ticket_id: ticket.id,
        p_body: 'Done, I think.',
        p_kind: 'reply',
        p_new_status: 'solved',
      });
      expect(byReply.error?.message).toBe('field_required');
      // Nothing of the refused reply stays.
      const { rows } = await db.sql(
        `select count(*)::int as n from messages where ticket_id = $1 and body = 'Done, I think.'`,
        [ticket.id],
      );
      expect(rows[0].n).toBe(0);
      // The requester solving their own request is not held up by the team's fields.
      const mine = await openTicket(db);
      const byRequester = await clients.acmeCustomer
        .from('tickets')
        .update({ status: 'solved' })
        .eq('id', mine.id)
        .select('status');
      expect(byRequester.data).toEqual([{ status: 'solved' }]);

      await clients.acmeAgent.rpc('set_ticket_fields', { p_ticket_id: ticket.id, p_values: { [required.id]: 'Bug' } });
      const solved = await clients.acmeAgent
        .from('tickets')
        .update({ status: 'solved' })
        .eq('id', ticket.id)
        .select('status');
      expect(solved.data).toEqual([{ status: 'solved' }]);

      // A bulk solve solves the tickets that have it and counts the others as skipped, not failing the batch.
      const [filled, empty] = [await openTicket(db), await openTicket(db)];
      await clients.acmeAgent.rpc('set_ticket_fields', { p_ticket_id: filled.id, p_values: { [required.id]: 'Bug' } });
      const bulk = await clients.acmeAgent.rpc('bulk_update_tickets', {
        p_ticket_ids: [filled.id, empty.id],
        p_action: 'status',
        p_value: 'solved',
      });
      expect(bulk.error).toBeNull();
      expect(bulk.data).toMatchObject({ updated: 1, skipped: { field_required: 1 } });
      const { rows: statuses } = await db.sql('select id, status from tickets where id = any($1) order by number', [
        [filled.id, empty.id],
      ]);
      expect(statuses.map((r) => r.status)).toEqual(['solved', 'new']);
    } finally {
      // The other tests here solve tickets: the required field goes with this one.
      await db.sql('delete from ticket_fields where id = $1', [required.id]);
    }
  });

  it('keeps a field’s kind and checks a dropdown’s choices', async () => {
    const f = await field('text');
    const { error: kind } = await clients.acmeAdmin.from('ticket_fields').update({ kind: 'number' }).eq('id', f.id);
    expect(kind?.code).toBe('42501');
    const { error: empty } = await clients.acmeAdmin
      .from('ticket_fields')
      .insert({ workspace_id: ACME, label: label('Size'), kind: 'dropdown', options: [] });
    expect(empty?.code).toBe('23514');
    const { error: twice } = await clients.acmeAdmin
      .from('ticket_fields')
      .insert({ workspace_id: ACME, label: label('Size'), kind: 'dropdown', options: ['A', 'a'] });
    expect(twice?.code).toBe('23514');
  });

  it('lists a ticket’s fields with their values for members only', async () => {
    const f = await field('text');
    const ticket = await openTicket(db);
    await clients.acmeAgent.rpc('set_ticket_fields', { p_ticket_id: ticket.id, p_values: { [f.id]: 'Shown' } });
    const { data } = await clients.acmeAgent.rpc('ticket_field_list', { p_slug: 'acme', p_number: ticket.number });
    expect((data as { id: string; value: string }[]).find((x) => x.id === f.id)?.value).toBe('Shown');
    const { data: globex } = await clients.globexAdmin.rpc('ticket_field_list', {
      p_slug: 'acme',
      p_number: ticket.number,
    });
    expect(globex).toEqual([]);
  });
});
