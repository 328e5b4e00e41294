// scripts/seed-bulk.ts against a fresh stack: numbering kept, messages and derived columns filled,
// every trigger back on afterwards, and the app's rules still hold for new tickets.
import { describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, openTicket, seedBulk } from '../support/db.ts';

describe('seed:bulk', () => {
  const db = dbFixture();

  it('adds tickets with consecutive numbers, messages, history and search, then leaves every trigger enabled', async () => {
    const before = (await db.sql('select ticket_seq from workspaces where id = $1', [ACME])).rows[0]
      .ticket_seq as number;
    await seedBulk(db, 2500);
    const { rows } = await db.sql(
      `select count(*)::int n, min(number) lo, max(number) hi, count(distinct number)::int d,
              count(*) filter (where status <> 'new' and first_response_at is null)::int no_response,
              count(*) filter (where search = ''::tsvector)::int no_search,
              (select ticket_seq from workspaces where id = $1) seq
         from tickets where workspace_id = $1 and number > $2`,
      [ACME, before],
    );
    expect(rows[0]).toEqual({
      n: 2500,
      lo: before + 1,
      hi: before + 2500,
      d: 2500,
      no_response: 0,
      no_search: 0,
      seq: before + 2500,
    });
    const orphans = await db.sql(
      `select count(*)::int n from tickets t where workspace_id = $1 and number > $2
          and (not exists (select 1 from messages m where m.ticket_id = t.id) or not exists (select 1 from ticket_events e where e.ticket_id = t.id))`,
      [ACME, before],
    );
    expect(orphans.rows[0].n).toBe(0);
    // History follows docs/product.md §4's moves, and no timestamp lies in the future.
    const moves = await db.sql(
      `select distinct e."from" || '→' || e."to" as move from ticket_events e join tickets t on t.id = e.ticket_id
        where t.workspace_id = $1 and t.number > $2 and e.type = 'status'`,
      [ACME, before],
    );
    const allowed = [
      'new→open',
      'new→pending',
      'new→solved',
      'open→pending',
      'open→solved',
      'pending→open',
      'pending→solved',
      'solved→open',
      'solved→closed',
    ];
    for (const { move } of moves.rows) expect(allowed, move).toContain(move);
    const future = await db.sql(
      `select count(*)::int n from tickets where workspace_id = $1 and number > $2
          and (created_at > now() or solved_at > now() or closed_at > now() or (status = 'solved' and solved_at < now() - interval '7 days'))`,
      [ACME, before],
    );
    expect(future.rows[0].n).toBe(0);
    const disabled = await db.sql(
      `select tgname from pg_trigger where tgrelid in ('public.tickets'::regclass, 'public.messages'::regclass) and not tgisinternal and tgenabled = 'D'`,
    );
    expect(disabled.rows).toEqual([]);
    // Numbering continues from the counter for the next request.
    expect((await openTicket(db)).number).toBe(before + 2501);
  });
});
