// Removing a member (docs/product.md §2 /w/:slug/settings/members, §7 remove_member): their tickets that
// aren't closed go to another member, or none, in the same transaction as the removal; RLS says who
// may remove whom, and a refused removal hands nothing over.
import { describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, PEOPLE } from '../support/db.ts';

describe('remove_member', () => {
  const db = dbFixture();
  const leaving = PEOPLE.acmeAgent2.id;

  const held = async () =>
    (
      await db.sql(
        `select assignee_id from tickets where workspace_id = $1 and status <> 'closed' and assignee_id = $2`,
        [ACME, leaving],
      )
    ).rowCount;

  async function giveTickets(n: number) {
    await db.sql(
      `insert into tickets (workspace_id, requester_id, assignee_id, subject)
       select $1, $2, $3, 'Held ' || i from generate_series(1, $4) i`,
      [ACME, PEOPLE.acmeCustomer.id, leaving, n],
    );
  }

  it('is refused to an agent, a customer and another workspace, and hands nothing over', async () => {
    await giveTickets(2);
    const before = await held();
    for (const person of ['acmeAgent', 'acmeCustomer', 'globexAdmin'] as const) {
      const client = await db.as(person);
      const { error } = await client.rpc('remove_member', {
        p_workspace_id: ACME,
        p_user_id: leaving,
        p_reassign_to: PEOPLE.acmeAgent.id,
      });
      // not_found (RLS hides the membership), or forbidden before it for the requester.
      expect(['not_found', 'forbidden'], person).toContain(error?.message);
      expect(await held(), person).toBe(before);
    }
  });

  it('refuses a successor who is not a member, or the leaver, changing nothing', async () => {
    const admin = await db.as('acmeAdmin');
    for (const [successor, message] of [
      [PEOPLE.globexAgent.id, 'assignee_not_member'],
      [leaving, 'bad_request'],
    ]) {
      const { error } = await admin.rpc('remove_member', {
        p_workspace_id: ACME,
        p_user_id: leaving,
        p_reassign_to: successor,
      });
      expect(error).toMatchObject({ message });
    }
    expect(
      (await db.sql(`select 1 from memberships where workspace_id = $1 and user_id = $2`, [ACME, leaving])).rowCount,
    ).toBe(1);
  });

  it('an admin removes a member and their tickets that are not closed go to the successor', async () => {
    const n = await held();
    expect(n).toBeGreaterThan(0);
    const admin = await db.as('acmeAdmin');
    const { data, error } = await admin.rpc('remove_member', {
      p_workspace_id: ACME,
      p_user_id: leaving,
      p_reassign_to: PEOPLE.acmeAgent.id,
    });
    expect(error).toBeNull();
    expect(data).toBe(n);
    expect(await held()).toBe(0);
    expect(
      (await db.sql(`select 1 from memberships where workspace_id = $1 and user_id = $2`, [ACME, leaving])).rowCount,
    ).toBe(0);
  });
});
