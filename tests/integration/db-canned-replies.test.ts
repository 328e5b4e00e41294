// Canned replies in the database (docs/product.md §3, §6), per role through PostgREST: admins of the
// workspace manage them, its agents read them, customers, another workspace and visitors see nothing;
// titles are unique per workspace, placeholders must be known, who and when are the database's.
import { randomUUID } from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { PLACEHOLDERS } from '../../app/lib/helpdesk/canned-replies.ts';
import { dbFixture } from '../support/fixture.ts';
import { ACME, GLOBEX, PEOPLE } from '../support/db.ts';

type Role = 'acmeAdmin' | 'acmeAgent' | 'acmeCustomer' | 'globexAdmin' | 'anon';
const ROLES: Role[] = ['acmeAdmin', 'acmeAgent', 'acmeCustomer', 'globexAdmin', 'anon'];

describe('canned replies', () => {
  const db = dbFixture();
  const clients = {} as Record<Role, SupabaseClient>;
  const title = (label: string) => `${label} ${randomUUID().slice(0, 8)}`;
  /** A reply at Acme written straight into the database. */
  const fresh = async (body = 'Hello {{requester.name}}') =>
    (
      await db.sql('insert into canned_replies (workspace_id, title, body) values ($1, $2, $3) returning id', [
        ACME,
        title('Fresh'),
        body,
      ])
    ).rows[0].id as string;
  const row = async (id: string) => (await db.sql('select * from canned_replies where id = $1', [id])).rows[0];

  beforeAll(async () => {
    for (const r of ROLES) clients[r] = r === 'anon' ? db.anon() : await db.as(r);
  });

  describe('per role', () => {
    for (const role of ROLES) {
      const admin = role === 'acmeAdmin';
      const reads = admin || role === 'acmeAgent';

      it(`${role}: ${reads ? 'reads' : 'sees none of'} the workspace's replies`, async () => {
        await fresh();
        const { data } = await clients[role].from('canned_replies').select('id, title, body').eq('workspace_id', ACME);
        if (reads) expect((data ?? []).length).toBeGreaterThan(0);
        else expect(data ?? []).toEqual([]);
      });

      it(`${role}: ${admin ? 'adds' : 'may not add'} a reply`, async () => {
        const t = title('Added');
        const { error } = await clients[role]
          .from('canned_replies')
          .insert({ workspace_id: ACME, title: t, body: 'Hi' });
        if (admin) expect(error).toBeNull();
        else expect(error?.code, role).toBe('42501');
        const { rows } = await db.sql('select created_by from canned_replies where title = $1', [t]);
        expect(rows).toEqual(admin ? [{ created_by: PEOPLE.acmeAdmin.id }] : []);
      });

      it(`${role}: ${admin ? 'edits' : 'may not edit'} a reply`, async () => {
        const id = await fresh();
        const { data } = await clients[role]
          .from('canned_replies')
          .update({ body: 'Rewritten' })
          .eq('id', id)
          .select('id');
        expect(data ?? []).toHaveLength(admin ? 1 : 0);
        expect((await row(id)).body).toBe(admin ? 'Rewritten' : 'Hello {{requester.name}}');
      });

      it(`${role}: ${admin ? 'deletes' : 'may not delete'} a reply`, async () => {
        const id = await fresh();
        const { data } = await clients[role].from('canned_replies').delete().eq('id', id).select('id');
        expect(data ?? []).toHaveLength(admin ? 1 : 0);
        expect(await row(id)).toEqual(admin ? undefined : expect.objectContaining({ id }));
      });
    }

    it("another workspace's admin manages only their own", async () => {
      const own = await clients.globexAdmin
        .from('canned_replies')
        .insert({ workspace_id: GLOBEX, title: title('Globex'), body: 'Hi from {{workspace.name}}' })
        .select('id')
        .single();
      expect(own.error).toBeNull();
      const { data } = await clients.acmeAdmin.from('canned_replies').select('id').eq('id', own.data!.id);
      expect(data).toEqual([]);
      const moved = await clients.globexAdmin
        .from('canned_replies')
        .update({ workspace_id: ACME })
        .eq('id', own.data!.id);
      expect(moved.error?.code).toBe('42501');
    });
  });

  it("titles are unique per workspace, whatever their case; another workspace's may repeat them", async () => {
    const admin = clients.acmeAdmin;
    const t = title('Refund issued');
    expect((await admin.from('canned_replies').insert({ workspace_id: ACME, title: t, body: 'a' })).error).toBeNull();
    const again = await admin.from('canned_replies').insert({ workspace_id: ACME, title: t.toUpperCase(), body: 'b' });
    expect(again.error?.code).toBe('23505');
    const other = await clients.globexAdmin
      .from('canned_replies')
      .insert({ workspace_id: GLOBEX, title: t, body: 'c' });
    expect(other.error).toBeNull();
    // A rename onto a taken title too.
    const id = await fresh();
    const rename = await admin.from('canned_replies').update({ title: t }).eq('id', id);
    expect(rename.error?.code).toBe('23505');
  });

  it('placeholders: the app’s list is accepted, any other name between {{ }} refused', async () => {
    const admin = clients.acmeAdmin;
    const all = PLACEHOLDERS.map((p) => `{{${p}}} {{ ${p} }}`).join('\n');
    const ok = await admin.from('canned_replies').insert({ workspace_id: ACME, title: title('All'), body: all });
    expect(ok.error).toBeNull();
    for (const body of ['Hi {{requester.nmae}}', '{{Requester.Name}}', '{{}}', '{{ order.id }} and {{agent.name}}']) {
      const { error } = await admin.from('canned_replies').insert({ workspace_id: ACME, title: title('Bad'), body });
      expect(error?.code, body).toBe('23514');
      expect(error?.message, body).toContain('canned_replies_placeholders_known');
    }
    // Single braces and an unclosed pair are plain text.
    const plain = await admin
      .from('canned_replies')
      .insert({ workspace_id: ACME, title: title('Plain'), body: 'Use {braces} or {{ not closed' });
    expect(plain.error).toBeNull();
    const { rows } = await db.sql(
      `select private.unknown_placeholders('{{x}} {{requester.name}} {{ y }} {{x}}') as names`,
    );
    expect(rows[0].names).toEqual(['x', 'y']);
  });

  it('an edit is stamped with who and when by the database, which the client cannot write', async () => {
    const id = await fresh();
    expect(await row(id)).toMatchObject({ updated_by: null, updated_at: null });
    const admin = clients.acmeAdmin;
    for (const patch of [{ updated_by: PEOPLE.acmeAgent.id }, { updated_at: '2001-01-01T00:00:00Z' }]) {
      expect((await admin.from('canned_replies').update(patch).eq('id', id)).error?.code).toBe('42501');
    }
    expect(
      (
        await admin
          .from('canned_replies')
          .update({ title: title('Edited') })
          .eq('id', id)
      ).error,
    ).toBeNull();
    const edited = await row(id);
    expect(edited.updated_by).toBe(PEOPLE.acmeAdmin.id);
    expect(Math.abs(edited.updated_at.getTime() - Date.now())).toBeLessThan(60_000);
    const inserted = await admin
      .from('canned_replies')
      .insert({ workspace_id: ACME, title: title('Forged'), body: 'x', updated_by: PEOPLE.acmeAgent.id });
    expect(inserted.error?.code).toBe('42501');
  });
});
