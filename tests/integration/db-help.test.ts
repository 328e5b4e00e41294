// The help center in the database (supabase/schemas/65_help_center.sql; docs/product.md §6 and
// docs/product.md#the-help-center-public), per role through PostgREST: published articles are public, drafts their
// workspace's members' only and another workspace's never; members write and publish, admins delete; search ranks
// titles first, takes the word being typed as a prefix, marks snippets and corrects misspelt words; votes are one
// per visitor and limited per article; searches with no result and deflections are counted.
import { randomUUID } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { snippetParts } from '../../app/lib/help/articles.ts';
import { dbFixture } from '../support/fixture.ts';
import { ACME, GLOBEX, PEOPLE, createUser, userJwt } from '../support/db.ts';

type Role = 'acmeAdmin' | 'acmeAgent' | 'acmeCustomer' | 'globexAdmin' | 'anon';
const ROLES: Role[] = ['acmeAdmin', 'acmeAgent', 'acmeCustomer', 'globexAdmin', 'anon'];

describe('help center', () => {
  const db = dbFixture();
  const clients = {} as Record<Role, SupabaseClient>;
  const tag = () => randomUUID().slice(0, 8);

  /** An article written straight into the database. */
  async function article(o: { title?: string; body?: string; status?: string; workspace?: string } = {}) {
    const { rows } = await db.sql(
      'insert into help_articles (workspace_id, title, body, status) values ($1, $2, $3, $4) returning id::int, slug',
      [o.workspace ?? ACME, o.title ?? `Article ${tag()}`, o.body ?? 'Some text.', o.status ?? 'published'],
    );
    return rows[0] as { id: number; slug: string };
  }

  beforeAll(async () => {
    for (const r of ROLES) clients[r] = r === 'anon' ? db.anon() : await db.as(r);
  });

  describe('who reads and writes what', () => {
    for (const role of ROLES) {
      const member = role === 'acmeAdmin' || role === 'acmeAgent';
      it(`${role}: reads published articles; ${member ? 'reads' : 'never sees'} Acme's drafts`, async () => {
        const published = await article();
        const draft = await article({ status: 'draft' });
        const { data } = await clients[role].from('help_articles').select('id').in('id', [published.id, draft.id]);
        expect((data ?? []).map((r) => r.id).sort()).toEqual(member ? [published.id, draft.id].sort() : [published.id]);
        // And through the page's function: a draft is not found for anyone else.
        const page = await clients[role].rpc('help_article', { p_slug: 'acme', p_id: draft.id });
        if (member) expect(page.data.title).toBeTruthy();
        else expect(page.error?.message).toBe('not_found');
      });

      it(`${role}: ${member ? 'writes and publishes' : 'may not write'} an article`, async () => {
        const title = `Written ${tag()}`;
        const { error } = await clients[role]
          .from('help_articles')
          .insert({ workspace_id: ACME, title, body: 'x', status: 'published' });
        if (member) expect(error).toBeNull();
        else expect(error?.code, role).toBe('42501');
        const { rows } = await db.sql('select author_id, status from help_articles where title = $1', [title]);
        expect(rows).toEqual(member ? [{ author_id: PEOPLE[role as 'acmeAdmin'].id, status: 'published' }] : []);
      });

      it(`${role}: ${member ? 'edits' : 'may not edit'} an article; ${role === 'acmeAdmin' ? 'deletes' : 'may not delete'} one`, async () => {
        const a = await article();
        const { data: edited } = await clients[role]
          .from('help_articles')
          .update({ body: 'Rewritten' })
          .eq('id', a.id)
          .select('id');
        expect(edited ?? []).toHaveLength(member ? 1 : 0);
        const { data: deleted } = await clients[role].from('help_articles').delete().eq('id', a.id).select('id');
        expect(deleted ?? []).toHaveLength(role === 'acmeAdmin' ? 1 : 0);
      });
    }

    it("another workspace's members never see Acme's drafts, nor move an article there", async () => {
      const draft = await article({ status: 'draft', title: `Acme secret ${tag()}` });
      const search = await clients.globexAdmin.rpc('help_search', {
        p_slug: 'acme',
        p_query: 'secret',
        p_published_only: false,
      });
      expect(search.data.results.map((r: { id: number }) => r.id)).not.toContain(draft.id);
      const own = await article({ workspace: GLOBEX });
      const moved = await clients.globexAdmin.from('help_articles').update({ workspace_id: ACME }).eq('id', own.id);
      expect(moved.error?.code).toBe('42501');
      // A collection of another workspace can't hold the article (the foreign key carries the workspace).
      const { rows } = await db.sql('insert into help_collections (workspace_id, title) values ($1, $2) returning id', [
        ACME,
        `Acme only ${tag()}`,
      ]);
      const cross = await clients.globexAdmin
        .from('help_articles')
        .update({ collection_id: rows[0].id })
        .eq('id', own.id);
      expect(cross.error?.code).toBe('23503');
    });

    it('who wrote and edited an article, when, its slug and search vector are the database’s', async () => {
      const a = await article({ title: 'Reset your Password!! (2FA)' });
      expect(a.slug).toBe('reset-your-password-2fa');
      for (const patch of [{ author_id: PEOPLE.acmeAgent.id }, { slug: 'x' }, { updated_at: '2001-01-01' }]) {
        expect((await clients.acmeAdmin.from('help_articles').update(patch).eq('id', a.id)).error?.code).toBe('42501');
      }
      await clients.acmeAgent.from('help_articles').update({ title: 'Renamed article' }).eq('id', a.id);
      const { rows } = await db.sql('select slug, updated_by from help_articles where id = $1', [a.id]);
      expect(rows[0]).toEqual({ slug: 'renamed-article', updated_by: PEOPLE.acmeAgent.id });
    });

    it('collections: public once they hold a published article; admins manage them', async () => {
      const title = `Billing ${tag()}`;
      expect((await clients.acmeAgent.from('help_collections').insert({ workspace_id: ACME, title })).error?.code).toBe(
        '42501',
      );
      const { data: c, error } = await clients.acmeAdmin
        .from('help_collections')
        .insert({ workspace_id: ACME, title })
        .select('id, slug')
        .single();
      expect(error).toBeNull();
      const visible = async () => (await clients.anon.from('help_collections').select('id').eq('id', c!.id)).data;
      expect(await visible()).toEqual([]);
      await db.sql(
        "insert into help_articles (workspace_id, collection_id, title, status) values ($1, $2, 'In it', 'published')",
        [ACME, c!.id],
      );
      expect(await visible()).toEqual([{ id: c!.id }]);
      const again = await clients.acmeAdmin
        .from('help_collections')
        .insert({ workspace_id: ACME, title: title.toUpperCase() });
      expect(again.error?.code).toBe('23505');
    });
  });

  describe('search', () => {
    const word = `zq${tag().replace(/[0-9]/g, 'x')}`;
    let inTitle: { id: number };
    let inBody: { id: number };

    beforeAll(async () => {
      inBody = await article({
        title: `Shipping times ${tag()}`,
        body: `The ${word} is mentioned here. ${word} again, ${word} and ${word}. Parcels arrive in 3 days.`,
      });
      inTitle = await article({ title: `All about the ${word}`, body: 'A short article.' });
      await article({ title: `Draft ${word}`, status: 'draft' });
      await article({ title: `Globex ${word}`, workspace: GLOBEX });
    });

    const search = async (q: string, who: Role = 'anon', published = true) => {
      const { data, error } = await clients[who].rpc('help_search', {
        p_slug: 'acme',
        p_query: q,
        p_published_only: published,
      });
      expect(error).toBeNull();
      return data as { results: { id: number; title_marked: string; snippet: string }[]; corrected: string | null };
    };

    it('ranks a title match above a body that repeats the word, and marks the matches', async () => {
      const { results } = await search(word);
      expect(results.map((r) => r.id)).toEqual([inTitle.id, inBody.id]);
      const marked = snippetParts(results[1]!.snippet).filter((p) => p.marked);
      expect(marked.map((p) => p.text.toLowerCase())).toContain(word);
      expect(snippetParts(results[0]!.title_marked)).toContainEqual({ text: word, marked: true });
    });

    it('finds the word being typed by its beginning, not a finished one', async () => {
      expect((await search(word.slice(0, 5))).results.map((r) => r.id)).toContain(inTitle.id);
      // Followed by a space the word is finished: only whole words match.
      expect((await search(`${word.slice(0, 5)} `)).results).toEqual([]);
    });

    it('shows drafts only to members who ask for them, and never another workspace’s', async () => {
      expect((await search(word, 'acmeAgent')).results).toHaveLength(2);
      expect((await search(word, 'acmeAgent', false)).results).toHaveLength(3);
      expect((await search(word, 'anon', false)).results).toHaveLength(2);
      expect((await search(word, 'globexAdmin', false)).results).toHaveLength(2);
    });

    it('corrects misspelt words, short ones too, and says so', async () => {
      await article({ title: 'Change your email address', body: 'Open your account settings to change the email.' });
      await article({ title: 'Request a refund', body: 'Refunds take five days.' });
      for (const [typed, meant] of [
        ['emial', 'email'],
        ['refnd', 'refund'],
        ['adress', 'address'],
        ['acount settings', 'account settings'],
      ]) {
        const found = await search(typed);
        expect(found.corrected, typed).toBe(meant);
        expect(found.results.length, typed).toBeGreaterThan(0);
      }
      // A word that is there is never "corrected", and nonsense finds nothing.
      expect((await search('email')).corrected).toBeNull();
      expect(await search('qqqqxxxx')).toEqual(expect.objectContaining({ results: [], corrected: null }));
    });

    it('takes websearch syntax and hostile input without an error', async () => {
      for (const q of [
        '"all about"',
        `-${word}`,
        'or',
        '(',
        "'); drop table help_articles; --",
        '::*',
        '&|!',
        ' '.repeat(300),
      ]) {
        const { error } = await clients.anon.rpc('help_search', { p_slug: 'acme', p_query: q });
        expect(error, q).toBeNull();
      }
      // A NUL can't reach Postgres as text: bad input (class 22), which the app maps to bad_request; the
      // app's pages drop control characters before they search.
      const nul = await clients.anon.rpc('help_search', { p_slug: 'acme', p_query: '\u0000x' });
      expect(nul.error?.code).toMatch(/^22/);
    });
  });

  describe('versions of the public pages (what the app remembers for signed-out readers)', () => {
    const version = async (slug = 'acme') =>
      (
        (await clients.anon.rpc('help_versions', { p_slugs: [slug, 'no-such-workspace'] })).data as Record<
          string,
          number
        >
      )[slug];

    it('moves on with every change a public page shows, and only then', async () => {
      const moved = async (change: () => Promise<unknown>) => {
        const before = await version();
        await change();
        return (await version()) !== before;
      };
      let a = { id: 0, slug: '' };
      expect(await moved(async () => (a = await article()))).toBe(true);
      expect(await moved(() => db.sql('update help_articles set body = $2 where id = $1', [a.id, 'New text.']))).toBe(
        true,
      );
      expect(await moved(() => db.sql("update help_articles set status = 'draft' where id = $1", [a.id]))).toBe(true);
      expect(await moved(() => db.sql('delete from help_articles where id = $1', [a.id]))).toBe(true);
      const title = `Versions ${tag()}`;
      expect(
        await moved(() => db.sql('insert into help_collections (workspace_id, title) values ($1, $2)', [ACME, title])),
      ).toBe(true);
      expect(
        await moved(() => db.sql('update help_collections set description = $2 where title = $1', [title, 'About.'])),
      ).toBe(true);
      expect(await moved(() => db.sql('update workspaces set name = name where id = $1', [ACME]))).toBe(true);
      // A view, a vote or a search with no result is no change to a page.
      const b = await article();
      const nothing = `nothing ${tag()}`;
      expect(
        await moved(async () => {
          await clients.anon.rpc('count_help_view', { p_article_id: b.id });
          await clients.anon.rpc('help_vote', { p_article_id: b.id, p_visitor: randomUUID(), p_helpful: true });
          await clients.anon.rpc('record_help_search_miss', { p_slug: 'acme', p_query: nothing });
        }),
      ).toBe(false);
      // Out of the way of the limit of 200 different searches with no result a day (tested below).
      await db.sql('delete from help_search_misses where query = $1', [nothing]);
      // Another workspace's change leaves Acme's as it was; an address that is no workspace's has none.
      expect(await moved(() => article({ workspace: GLOBEX }))).toBe(false);
      expect(await version('no-such-workspace')).toBeUndefined();
    });
  });

  describe('what is measured', () => {
    it('counts views of published articles only, one row per article and day', async () => {
      const a = await article();
      const d = await article({ status: 'draft' });
      for (let i = 0; i < 3; i++)
        await clients.anon.rpc('help_article', { p_slug: 'acme', p_id: a.id, p_count_view: true });
      await clients.acmeAgent.rpc('help_article', { p_slug: 'acme', p_id: d.id, p_count_view: true });
      const { rows } = await db.sql(
        'select article_id::int, views from help_article_views where article_id = any($1)',
        [[a.id, d.id]],
      );
      expect(rows).toEqual([{ article_id: a.id, views: 3 }]);
      // Nobody writes the counts directly.
      const forged = await clients.acmeAdmin
        .from('help_article_views')
        .insert({ article_id: a.id, day: '2026-01-01', workspace_id: ACME, views: 1000 });
      expect(forged.error?.code).toBe('42501');
    });

    it('views and searches with no result sent together: the service role only, counted as sent', async () => {
      const a = await article();
      const d = await article({ status: 'draft' });
      const service = db.service();
      const sent = await service.rpc('count_help_views', { p_article_ids: [a.id, d.id, a.id], p_views: [5, 7, 2] });
      expect(sent.error).toBeNull();
      const { rows } = await db.sql(
        'select article_id::int, views from help_article_views where article_id = any($1)',
        [[a.id, d.id]],
      );
      expect(rows).toEqual([{ article_id: a.id, views: 7 }]);
      const q = `Nothing Sent ${tag()}`;
      const misses = await service.rpc('record_help_search_misses', {
        p_slug: 'acme',
        p_queries: [q, q.toUpperCase()],
        p_searches: [3, 1],
      });
      expect(misses.error).toBeNull();
      const { rows: missed } = await db.sql('select searches from help_search_misses where query = $1', [
        q.toLowerCase(),
      ]);
      expect(missed).toEqual([{ searches: 4 }]);
      // Out of the way of the limit of 200 different ones a day (tested below).
      await db.sql('delete from help_search_misses where query = $1', [q.toLowerCase()]);
      // Anyone else may only count one at a time.
      for (const role of ['anon', 'acmeAdmin'] as const) {
        const views = await clients[role].rpc('count_help_views', { p_article_ids: [a.id], p_views: [1000] });
        expect(views.error?.code).toBe('42501');
        const searches = await clients[role].rpc('record_help_search_misses', {
          p_slug: 'acme',
          p_queries: [q],
          p_searches: [1000],
        });
        expect(searches.error?.code).toBe('42501');
      }
    });

    it('one vote per visitor per article, which may change; drafts take none', async () => {
      const a = await article();
      const visitor = randomUUID();
      for (const helpful of [true, false, false]) {
        expect(
          (await clients.anon.rpc('help_vote', { p_article_id: a.id, p_visitor: visitor, p_helpful: helpful })).error,
        ).toBeNull();
      }
      // A signed-in customer votes as themselves, whatever visitor id is sent.
      await clients.acmeCustomer.rpc('help_vote', { p_article_id: a.id, p_visitor: visitor, p_helpful: true });
      await clients.acmeCustomer.rpc('help_vote', { p_article_id: a.id, p_visitor: randomUUID(), p_helpful: true });
      const { rows } = await db.sql(
        'select visitor_id, helpful from help_article_votes where article_id = $1 order by helpful',
        [a.id],
      );
      expect(rows).toEqual([
        { visitor_id: visitor, helpful: false },
        { visitor_id: PEOPLE.acmeCustomer.id, helpful: true },
      ]);
      const draft = await article({ status: 'draft' });
      const refused = await clients.anon.rpc('help_vote', {
        p_article_id: draft.id,
        p_visitor: visitor,
        p_helpful: true,
      });
      expect(refused.error?.message).toBe('not_found');
    });

    it('refuses more than 100 votes an hour on one article, whoever sends them', async () => {
      const a = await article();
      await db.sql(
        `insert into help_article_votes (article_id, visitor_id, workspace_id, helpful)
         select $1, gen_random_uuid(), $2, true from generate_series(1, 100)`,
        [a.id, ACME],
      );
      const over = await clients.anon.rpc('help_vote', {
        p_article_id: a.id,
        p_visitor: randomUUID(),
        p_helpful: true,
      });
      expect(over.error?.message).toBe('too_many_attempts');
      // An hour later the article takes votes again.
      await db.sql("update help_article_votes set voted_at = now() - interval '61 minutes' where article_id = $1", [
        a.id,
      ]);
      const later = await clients.anon.rpc('help_vote', {
        p_article_id: a.id,
        p_visitor: randomUUID(),
        p_helpful: true,
      });
      expect(later.error).toBeNull();
    });

    it('records searches with no result, lower-cased, at most 200 different ones a day', async () => {
      const q = `Nothing Here ${tag()}`;
      for (let i = 0; i < 2; i++) await clients.anon.rpc('record_help_search_miss', { p_slug: 'acme', p_query: q });
      const { rows } = await db.sql('select searches from help_search_misses where workspace_id = $1 and query = $2', [
        ACME,
        q.toLowerCase(),
      ]);
      expect(rows).toEqual([{ searches: 2 }]);
      await db.sql(
        `insert into help_search_misses (workspace_id, day, query)
         select $1, (now() at time zone 'UTC')::date, 'filler ' || g from generate_series(1, 200) g on conflict do nothing`,
        [ACME],
      );
      await clients.anon.rpc('record_help_search_miss', { p_slug: 'acme', p_query: `one too many ${tag()}` });
      const { rows: count } = await db.sql(
        "select count(*)::int as n from help_search_misses where workspace_id = $1 and day = (now() at time zone 'UTC')::date",
        [ACME],
      );
      expect(count[0].n).toBeLessThanOrEqual(202);
      // One already there still counts.
      await clients.anon.rpc('record_help_search_miss', { p_slug: 'acme', p_query: q });
      const { rows: again } = await db.sql('select searches from help_search_misses where query = $1', [
        q.toLowerCase(),
      ]);
      expect(again).toEqual([{ searches: 3 }]);
    });

    it('a suggestion opened with no request in the next 30 minutes is a deflection, once settled', async () => {
      const a = await article({ title: `Deflecting ${tag()}` });
      const report = async () =>
        (await clients.acmeAdmin.rpc('help_report', { p_slug: 'acme', p_days: 7 })).data as {
          deflections: number;
          suggestion_clicks: number;
        };
      const before = await report();
      // Customer 1 opens it and sends nothing; customer 2 opens it and sends a request 10 minutes later.
      await clients.acmeCustomer.rpc('record_help_suggestion', { p_slug: 'acme', p_kind: 'click', p_article_id: a.id });
      const customer2 = await db.as('acmeCustomer2');
      await customer2.rpc('record_help_suggestion', { p_slug: 'acme', p_kind: 'click', p_article_id: a.id });
      // The same click again within 30 minutes is not another one.
      await clients.acmeCustomer.rpc('record_help_suggestion', { p_slug: 'acme', p_kind: 'click', p_article_id: a.id });
      expect((await report()).suggestion_clicks).toBe(before.suggestion_clicks + 2);
      // Not settled yet: nothing counts.
      expect((await report()).deflections).toBe(before.deflections);
      // 31 minutes pass; customer 2's request came 10 minutes after their click.
      await db.sql(
        "update help_suggestion_events set created_at = now() - interval '31 minutes' where article_id = $1",
        [a.id],
      );
      const { rows } = await db.sql(
        `insert into tickets (workspace_id, number, requester_id, subject, created_at)
         select $1, ticket_seq + 1, $2, 'After reading', now() - interval '21 minutes' from workspaces where id = $1
         returning id`,
        [ACME, PEOPLE.acmeCustomer2.id],
      );
      await db.sql('update workspaces set ticket_seq = ticket_seq + 1 where id = $1', [ACME]);
      expect(rows).toHaveLength(1);
      expect((await report()).deflections).toBe(before.deflections + 1);
      // Anonymous visitors can't record one; a customer can't for a draft.
      expect(
        (await clients.anon.rpc('record_help_suggestion', { p_slug: 'acme', p_kind: 'click', p_article_id: a.id }))
          .error,
      ).not.toBeNull();
      const draft = await article({ status: 'draft' });
      const refused = await clients.acmeCustomer.rpc('record_help_suggestion', {
        p_slug: 'acme',
        p_kind: 'click',
        p_article_id: draft.id,
      });
      expect(refused.error?.message).toBe('not_found');
    });

    it('the report is for admins: an agent is refused, another workspace not found', async () => {
      expect((await clients.acmeAgent.rpc('help_report', { p_slug: 'acme', p_days: 7 })).error?.message).toBe(
        'forbidden',
      );
      expect((await clients.globexAdmin.rpc('help_report', { p_slug: 'acme', p_days: 7 })).error?.message).toBe(
        'not_found',
      );
      const { data } = await clients.acmeAdmin.rpc('help_report', { p_slug: 'acme', p_days: 30 });
      expect(data.weeks.length).toBeGreaterThanOrEqual(5);
    });
  });
  describe('old addresses and images', () => {
    it("a renamed collection's old slug leads to its current one; a slug taken again is the new collection's", async () => {
      const t = tag();
      const { rows } = await db.sql(
        'insert into help_collections (workspace_id, title) values ($1, $2) returning id, slug',
        [ACME, `Billing ${t}`],
      );
      const [c] = rows as { id: string; slug: string }[];
      await article({ title: `Invoices ${t}` }).then((a) =>
        db.sql('update help_articles set collection_id = $1 where id = $2', [c.id, a.id]),
      );
      // Renamed twice, as an admin does through the API: both old slugs lead to the current one.
      await clients.acmeAdmin
        .from('help_collections')
        .update({ title: `Payments ${t}` })
        .eq('id', c.id);
      await clients.acmeAdmin
        .from('help_collections')
        .update({ title: `Plans ${t}` })
        .eq('id', c.id);
      for (const old of [c.slug, `payments-${t}`]) {
        const { data, error } = await clients.anon.rpc('help_collection', { p_slug: 'acme', p_collection: old });
        expect(error).toBeNull();
        expect(data.moved_to).toBe(`plans-${t}`);
      }
      const now = await clients.anon.rpc('help_collection', { p_slug: 'acme', p_collection: `plans-${t}` });
      expect(now.data.title).toBe(`Plans ${t}`);
      // A new collection named as the old one was: its own page, not a redirect.
      await db.sql('insert into help_collections (workspace_id, title) values ($1, $2)', [ACME, `Billing ${t}`]);
      const taken = await clients.acmeAdmin.rpc('help_collection', { p_slug: 'acme', p_collection: c.slug });
      expect(taken.data.moved_to).toBeUndefined();
      expect(taken.data.title).toBe(`Billing ${t}`);
      // Another workspace's old slug is not found there; nor is a slug never used.
      const elsewhere = await clients.anon.rpc('help_collection', { p_slug: 'globex', p_collection: `payments-${t}` });
      expect(elsewhere.error?.message).toBe('not_found');
      const never = await clients.anon.rpc('help_collection', { p_slug: 'acme', p_collection: `never-${t}` });
      expect(never.error?.message).toBe('not_found');
    });

    it("a deleted article's images are removed by the hourly sweep; one another article shows stays", async () => {
      const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
      const upload = async (name: string) => {
        const key = `${ACME}/${randomUUID()}/${name}`;
        const { error } = await clients.acmeAgent.storage.from('help').upload(key, PNG, { contentType: 'image/png' });
        expect(error).toBeNull();
        return key;
      };
      const url = (key: string) =>
        `${db.stack.apiUrl}/storage/v1/object/public/help/${key.split('/').map(encodeURIComponent).join('/')}`;
      const [own, shared, unused, recent] = await Promise.all(
        ['own shot.png', 'shared.png', 'never-used.png', 'just-now.png'].map(upload),
      );
      const gone = await article({ body: `![a](${url(own)})\n\n![b](${url(shared)})` });
      await article({ body: `Copied from another article: ![b](${url(shared)})` });
      // Nobody but the platform lists what nothing claims.
      for (const who of ['anon', 'acmeAdmin'] as const)
        expect((await clients[who].rpc('unclaimed_help_images')).error).not.toBeNull();

      const deleted = await clients.acmeAdmin.from('help_articles').delete().eq('id', gone.id).select('id');
      expect(deleted.data).toHaveLength(1);
      await db.sql(`update storage.objects set created_at = now() - interval '61 minutes' where name = any($1)`, [
        [own, shared, unused],
      ]);
      const res = await fetch(`${db.stack.apiUrl}/functions/v1/sweep-attachments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${db.stack.serviceRoleKey}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(200);
      const { rows } = await db.sql(`select name from storage.objects where bucket_id = 'help' and name = any($1)`, [
        [own, shared, unused, recent],
      ]);
      // The deleted article's own image and the one never shown are gone (bytes and row); the shared one
      // and an upload of the last hour (an article being written) stay.
      expect(rows.map((r) => r.name).sort()).toEqual([shared, recent].sort());
      expect((await fetch(url(own))).status).toBe(400);
      expect((await fetch(url(shared))).status).toBe(200);
    });
  });
  describe('uploads to the help bucket (per uploader, per role)', () => {
    const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const status = (error: unknown) => (error as { statusCode?: string } | null)?.statusCode ?? null;
    const put = (client: SupabaseClient, workspace: string, bytes = PNG, name = 'shot.png') =>
      client.storage
        .from('help')
        .upload(`${workspace}/${randomUUID()}/${name}`, bytes, { contentType: 'image/png' })
        .then(({ error }) => ({ error: status(error) }));
    /** A new member of Acme with a client of their own (an uploader with nothing uploaded yet). */
    async function newMember(role: 'agent' | 'admin' = 'agent') {
      const email = `help-up-${tag()}@example.test`;
      const id = await createUser(db, email);
      await db.sql('insert into memberships (workspace_id, user_id, role) values ($1, $2, $3)', [ACME, id, role]);
      const client = createClient(db.stack.apiUrl, db.stack.anonKey, {
        auth: { persistSession: false, autoRefreshToken: false },
        global: { headers: { Authorization: `Bearer ${await userJwt(db.stack.jwtSecret, { id, email })}` } },
      });
      return { id, client };
    }

    for (const role of ROLES) {
      const member = role === 'acmeAdmin' || role === 'acmeAgent';
      it(`${role}: ${member ? 'uploads' : 'may not upload'} an image to Acme's help center`, async () => {
        expect(await put(clients[role], ACME)).toEqual({ error: member ? null : '403' });
      });
    }

    it('refuses keys that are not <workspace>/<upload id>/<name>, and other workspaces', async () => {
      const { client } = await newMember();
      for (const key of [`${ACME}/shot.png`, `${ACME}/not-an-id/shot.png`, `${ACME}/${randomUUID()}/a/shot.png`]) {
        const { error } = await client.storage.from('help').upload(key, PNG, { contentType: 'image/png' });
        expect({ key, error: status(error) }).toEqual({ key, error: '403' });
      }
      expect(await put(client, GLOBEX)).toEqual({ error: '403' });
    });

    it('holds an uploader to 20 images no article shows; an article showing them frees room', async () => {
      const { client } = await newMember();
      const keys: string[] = [];
      for (let i = 0; i < 20; i++) {
        const key = `${ACME}/${randomUUID()}/shot-${i}.png`;
        const { error } = await client.storage.from('help').upload(key, PNG, { contentType: 'image/png' });
        expect({ i, error: status(error) }).toEqual({ i, error: null });
        keys.push(key);
      }
      expect(await put(client, ACME)).toEqual({ error: '403' });
      // Someone else's room is their own.
      const other = await newMember('admin');
      expect(await put(other.client, ACME)).toEqual({ error: null });
      // An article showing two of them: two more fit, then no more.
      const url = (key: string) => `${db.stack.apiUrl}/storage/v1/object/public/help/${key}`;
      await article({ body: `![a](${url(keys[0])}) ![b](${url(keys[1])})`, status: 'draft' });
      expect(await put(client, ACME)).toEqual({ error: null });
      expect(await put(client, ACME)).toEqual({ error: null });
      expect(await put(client, ACME)).toEqual({ error: '403' });
      // Removing one frees room too.
      await client.storage.from('help').remove([keys[2]]);
      expect(await put(client, ACME)).toEqual({ error: null });
    });

    it('holds an uploader to 50 MB of images no article shows', async () => {
      const { client } = await newMember();
      const nine = new Uint8Array(9 * 1024 * 1024);
      for (let i = 0; i < 6; i++) expect({ i, ...(await put(client, ACME, nine)) }).toEqual({ i, error: null });
      // 54 MB held: no more, however small.
      expect(await put(client, ACME)).toEqual({ error: '403' });
    });

    it('holds an uploader to 100 uploads a day, shown in articles or not', async () => {
      const { id, client } = await newMember();
      // 99 uploads of today, each shown by an article (as if uploaded, inserted and saved).
      await db.sql(
        `insert into storage.objects (bucket_id, name, owner_id, metadata)
         select 'help', $1 || '/' || gen_random_uuid() || '/old.png', $2, '{"size": 11}'::jsonb from generate_series(1, 99)`,
        [ACME, id],
      );
      const { rows } = await db.sql(`select name from storage.objects where owner_id = $1`, [id]);
      const url = (key: string) => `${db.stack.apiUrl}/storage/v1/object/public/help/${key}`;
      await article({ body: rows.map((r) => `![x](${url(r.name)})`).join('\n'), status: 'draft' });
      expect(await put(client, ACME)).toEqual({ error: null });
      expect(await put(client, ACME)).toEqual({ error: '403' });
      // A day later they count no more.
      await db.sql(`update storage.objects set created_at = now() - interval '25 hours' where owner_id = $1`, [id]);
      expect(await put(client, ACME)).toEqual({ error: null });
    });
  });
});
