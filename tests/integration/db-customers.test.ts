// Customers and companies in the database (docs/product.md#customers-companies-and-ticket-fields,
// docs/decisions/059-customers-and-companies.md), per role through PostgREST: members of the workspace read its
// customers, notes and companies, and write notes; customers, another workspace and visitors see none of it. The
// customer rows follow the tickets, the profile's name and the account's email; companies are email domains, free mail
// never.
import { randomUUID } from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, createUser, GLOBEX, PEOPLE } from '../support/db.ts';

type Role = 'acmeAdmin' | 'acmeAgent' | 'acmeCustomer' | 'globexAdmin' | 'anon';
const ROLES: Role[] = ['acmeAdmin', 'acmeAgent', 'acmeCustomer', 'globexAdmin', 'anon'];
const MEMBERS = new Set<Role>(['acmeAdmin', 'acmeAgent']);

describe('customers and companies', () => {
  const db = dbFixture();
  const clients = {} as Record<Role, SupabaseClient>;

  /** A new person who opens `tickets` tickets at Acme (as the platform writes them). */
  const customer = async (email: string, tickets = 1, name?: string) => {
    const id = await createUser(db, email);
    if (name) await db.sql('update profiles set display_name = $2 where user_id = $1', [id, name]);
    await db.sql(
      `insert into tickets (workspace_id, requester_id, subject, last_message_at)
       select $1, $2, 'Question ' || g, now() - g * interval '1 minute' from generate_series(1, $3::int) g`,
      [ACME, id, tickets],
    );
    return id;
  };
  const row = async (userId: string, ws = ACME) =>
    (await db.sql('select * from customers where workspace_id = $1 and user_id = $2', [ws, userId])).rows[0];

  beforeAll(async () => {
    for (const r of ROLES) clients[r] = r === 'anon' ? db.anon() : await db.as(r);
  });

  describe('kept by the database', () => {
    it('adds a requester with their first ticket and counts the rest, per workspace', async () => {
      const id = await customer(`kept-${randomUUID().slice(0, 8)}@Acme-Kept.example`, 3, 'Kim Kept');
      expect(await row(id)).toMatchObject({ name: 'Kim Kept', tickets: 3, company: 'acme-kept.example' });
      expect(await row(id, GLOBEX)).toBeUndefined();
      await db.sql(`insert into tickets (workspace_id, requester_id, subject) values ($1, $2, 'More')`, [ACME, id]);
      expect((await row(id)).tickets).toBe(4);
      await db.sql(`delete from tickets where requester_id = $1 and subject = 'More'`, [id]);
      expect((await row(id)).tickets).toBe(3);
    });

    it('follows the profile name and the account email', async () => {
      const id = await customer(`follow-${randomUUID().slice(0, 8)}@before.example`);
      await db.sql(`update profiles set display_name = 'Renamed Person' where user_id = $1`, [id]);
      await db.sql(`update auth.users set email = 'moved@after.example' where id = $1`, [id]);
      expect(await row(id)).toMatchObject({
        name: 'Renamed Person',
        email: 'moved@after.example',
        company: 'after.example',
      });
    });

    it('makes no company of a free-mail domain', async () => {
      const id = await customer(`someone-${randomUUID().slice(0, 8)}@gmail.com`);
      expect((await row(id)).company).toBeNull();
      const { error } = await clients.acmeAdmin.rpc('company_page', { p_slug: 'acme', p_domain: 'gmail.com' });
      expect(error?.message).toBe('not_found');
    });

    it('counts the seeded requesters (the migration backfill and the seed agree)', async () => {
      const { rows } = await db.sql(
        `select c.user_id, c.tickets, (select count(*)::int from tickets t where t.workspace_id = c.workspace_id and t.requester_id = c.user_id) as actual
           from customers c where c.user_id in ($1, $2)`,
        [PEOPLE.acmeCustomer.id, PEOPLE.acmeCustomer2.id],
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(r.tickets).toBe(r.actual);
    });
  });

  describe('per role', () => {
    for (const role of ROLES) {
      const member = MEMBERS.has(role);

      it(`${role}: ${member ? 'reads' : 'sees none of'} Acme's customers`, async () => {
        const { data } = await clients[role].from('customers').select('user_id').eq('workspace_id', ACME);
        if (member) expect(data?.map((c) => c.user_id)).toContain(PEOPLE.acmeCustomer.id);
        else expect(data ?? []).toEqual([]);
      });

      it(`${role}: ${member ? 'opens' : 'gets not_found for'} a customer's page`, async () => {
        const { data, error } = await clients[role].rpc('customer_page', {
          p_slug: 'acme',
          p_customer_id: PEOPLE.acmeCustomer.id,
        });
        if (member) {
          expect(error).toBeNull();
          const page = data as { customer: { email: string }; tickets: { number: number }[] };
          expect(page.customer.email).toBe(PEOPLE.acmeCustomer.email);
          expect(page.tickets.length).toBeGreaterThan(0);
        } else expect(error?.message, role).toMatch(role === 'anon' ? /permission denied/ : /^not_found$/);
      });

      it(`${role}: ${member ? 'writes and edits' : 'may neither read nor write'} notes about a customer`, async () => {
        const { data: written, error } = await clients[role]
          .from('customer_notes')
          .insert({ workspace_id: ACME, customer_id: PEOPLE.acmeCustomer.id, body: `Prefers email (${role})` })
          .select('id, created_by')
          .maybeSingle();
        if (!member) {
          expect(error?.code, role).toBe('42501');
          const { data } = await clients[role].from('customer_notes').select('id').eq('workspace_id', ACME);
          expect(data ?? []).toEqual([]);
          return;
        }
        expect(error).toBeNull();
        expect(written?.created_by).toBe(PEOPLE[role as 'acmeAdmin' | 'acmeAgent'].id);
      });
    }

    it('customers, other workspaces and visitors see no company name', async () => {
      await db.sql(
        `insert into companies (workspace_id, domain, name) values ($1, 'example.test', 'Example Inc') on conflict do nothing`,
        [ACME],
      );
      for (const role of ['acmeCustomer', 'globexAdmin', 'anon'] as const) {
        const { data } = await clients[role].from('companies').select('name');
        expect(data ?? [], role).toEqual([]);
      }
      const { data } = await clients.acmeAgent.from('companies').select('name').eq('workspace_id', ACME);
      expect(data).toEqual([{ name: 'Example Inc' }]);
    });
  });

  describe('notes', () => {
    it('keeps each earlier text with who wrote it', async () => {
      const agent = clients.acmeAgent;
      const { data: note } = await agent
        .from('customer_notes')
        .insert({ workspace_id: ACME, customer_id: PEOPLE.acmeCustomer2.id, body: 'VIP since 2020' })
        .select('id')
        .single();
      const id = note?.id as string;
      const admin = clients.acmeAdmin;
      const { error } = await admin.from('customer_notes').update({ body: 'VIP since 2019' }).eq('id', id);
      expect(error).toBeNull();
      const { data: page } = await agent.rpc('customer_page', {
        p_slug: 'acme',
        p_customer_id: PEOPLE.acmeCustomer2.id,
      });
      const shown = (
        page as {
          notes: {
            id: string;
            body: string;
            created_by: string;
            updated_by: string;
            versions: { body: string; written_by: string }[];
          }[];
        }
      ).notes.find((n) => n.id === id);
      expect(shown).toMatchObject({
        body: 'VIP since 2019',
        created_by: PEOPLE.acmeAgent.id,
        updated_by: PEOPLE.acmeAdmin.id,
        versions: [{ body: 'VIP since 2020', written_by: PEOPLE.acmeAgent.id }],
      });
    });

    it('lets the author or an admin delete a note, not another agent', async () => {
      const { data: note } = await clients.acmeAgent
        .from('customer_notes')
        .insert({ workspace_id: ACME, customer_id: PEOPLE.acmeCustomer.id, body: 'Delete me' })
        .select('id')
        .single();
      const other = await db.as('acmeAgent2');
      const { data: none } = await other
        .from('customer_notes')
        .delete()
        .eq('id', note?.id as string)
        .select('id');
      expect(none).toEqual([]);
      const { data: gone } = await clients.acmeAgent
        .from('customer_notes')
        .delete()
        .eq('id', note?.id as string)
        .select('id');
      expect(gone).toEqual([{ id: note?.id }]);
    });

    it('takes who wrote and when from the database, not the client', async () => {
      const { error } = await clients.acmeAgent.from('customer_notes').insert({
        workspace_id: ACME,
        customer_id: PEOPLE.acmeCustomer.id,
        body: 'x',
        created_by: PEOPLE.acmeAdmin.id,
      });
      expect(error?.code).toBe('42501');
    });

    it('refuses a note about someone who is not a customer of the workspace', async () => {
      const { error } = await clients.acmeAgent
        .from('customer_notes')
        .insert({ workspace_id: ACME, customer_id: PEOPLE.globexCustomer.id, body: 'Not ours' });
      expect(error?.code).toBe('23503');
    });
  });

  describe('lists and search', () => {
    it('finds customers by the start of their name or email, in name order, a page at a time', async () => {
      const tag = randomUUID().slice(0, 6);
      const ids = [];
      for (const n of ['Zed', 'Zora', 'Zack'])
        ids.push(await customer(`${n.toLowerCase()}-${tag}@zfind.example`, 1, `${n} ${tag}`));
      const first = await clients.acmeAgent.rpc('customers_page', { p_slug: 'acme', p_query: 'Z', p_limit: 2 });
      expect(first.error).toBeNull();
      const page1 = first.data as { customers: { name: string }[]; next: { name: string; id: string } | null };
      expect(page1.customers.map((c) => c.name)).toEqual([`Zack ${tag}`, `Zed ${tag}`]);
      const second = await clients.acmeAgent.rpc('customers_page', {
        p_slug: 'acme',
        p_query: 'z',
        p_limit: 2,
        p_after_name: page1.next?.name,
        p_after_id: page1.next?.id,
      });
      expect((second.data as typeof page1).customers.map((c) => c.name)[0]).toBe(`Zora ${tag}`);
      const byEmail = await clients.acmeAgent.rpc('customers_page', { p_slug: 'acme', p_query: `zora-${tag}@` });
      expect((byEmail.data as typeof page1).customers.map((c) => c.name)).toEqual([`Zora ${tag}`]);
      // A wildcard typed is a character, not a pattern.
      const wild = await clients.acmeAgent.rpc('customers_page', { p_slug: 'acme', p_query: '%' });
      expect((wild.data as typeof page1).customers).toEqual([]);
    });

    it('groups companies by domain, finds them by domain or name, with their tickets newest first', async () => {
      const domain = `co-${randomUUID().slice(0, 6)}.example`;
      const a = await customer(`a@${domain}`, 2, 'Ann Co');
      // Ben writes after Ann's first (a later transaction); Ann's second is the newest.
      await customer(`b@${domain}`, 1, 'Ben Co');
      await db.sql(
        `update tickets set last_message_at = now() + interval '1 hour' where requester_id = $1 and subject = 'Question 2'`,
        [a],
      );
      const list = await clients.acmeAgent.rpc('companies_page', { p_slug: 'acme', p_query: domain.slice(0, 8) });
      expect((list.data as { companies: unknown[] }).companies).toEqual([
        { domain, name: null, customers: 2, tickets: 3 },
      ]);
      await db.sql(`insert into companies (workspace_id, domain, name) values ($1, $2, 'Findable Ltd')`, [
        ACME,
        domain,
      ]);
      const byName = await clients.acmeAgent.rpc('companies_page', { p_slug: 'acme', p_query: 'findable' });
      expect((byName.data as { companies: { domain: string }[] }).companies.map((c) => c.domain)).toEqual([domain]);
      const page = await clients.acmeAgent.rpc('company_page', { p_slug: 'acme', p_domain: domain });
      const company = page.data as {
        company: { name: string; customers: number };
        tickets: { subject: string; requester: string }[];
      };
      expect(company.company).toMatchObject({ name: 'Findable Ltd', customers: 2 });
      expect(company.tickets.map((t) => [t.requester, t.subject])).toEqual([
        ['Ann Co', 'Question 2'],
        ['Ben Co', 'Question 1'],
        ['Ann Co', 'Question 1'],
      ]);
      for (const role of ['acmeCustomer', 'globexAdmin'] as const) {
        const { error } = await clients[role].rpc('company_page', { p_slug: 'acme', p_domain: domain });
        expect(error?.message, role).toBe('not_found');
      }
    });

    it('pages a customer’s tickets newest activity first, without repeats', async () => {
      const id = await customer(`many-${randomUUID().slice(0, 8)}@pages.example`, 30);
      const seen: string[] = [];
      let cursor: { at: string; id: string } | null = null;
      do {
        const { data, error } = await clients.acmeAgent.rpc('customer_page', {
          p_slug: 'acme',
          p_customer_id: id,
          ...(cursor ? { p_after_at: cursor.at, p_after_id: cursor.id } : {}),
        });
        expect(error).toBeNull();
        const page = data as { tickets: { subject: string }[]; older: { at: string; id: string } | null };
        seen.push(...page.tickets.map((t) => t.subject));
        cursor = page.older;
      } while (cursor);
      expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => `Question ${i + 1}`));
    });

    it('lets only admins name a company', async () => {
      const domain = `named-${randomUUID().slice(0, 6)}.example`;
      const { error: agent } = await clients.acmeAgent
        .from('companies')
        .insert({ workspace_id: ACME, domain, name: 'No' });
      expect(agent?.code).toBe('42501');
      const { error: admin } = await clients.acmeAdmin
        .from('companies')
        .insert({ workspace_id: ACME, domain, name: 'Yes' });
      expect(admin).toBeNull();
      const { error: free } = await clients.acmeAdmin
        .from('companies')
        .insert({ workspace_id: ACME, domain: 'gmail.com', name: 'Google' });
      expect(free?.code).toBe('23514');
    });

    it('sets a customer’s time zone only to one the database knows', async () => {
      const ok = await clients.acmeAgent
        .from('customers')
        .update({ time_zone: 'Europe/Berlin' })
        .eq('workspace_id', ACME)
        .eq('user_id', PEOPLE.acmeCustomer.id)
        .select('time_zone');
      expect(ok.data).toEqual([{ time_zone: 'Europe/Berlin' }]);
      const bad = await clients.acmeAgent
        .from('customers')
        .update({ time_zone: 'Mars/Olympus' })
        .eq('workspace_id', ACME)
        .eq('user_id', PEOPLE.acmeCustomer.id);
      expect(bad.error?.message).toBe('bad_request');
      const customerSelf = await clients.acmeCustomer
        .from('customers')
        .update({ time_zone: 'UTC' })
        .eq('user_id', PEOPLE.acmeCustomer.id)
        .select('time_zone');
      expect(customerSelf.data ?? []).toEqual([]);
    });
  });
});
