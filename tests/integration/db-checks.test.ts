// The database's own checks (docs/product.md §5) and invariants: lengths, slugs, profiles on sign-up,
// the last admin, assignees, the portal RPC, and the search vector.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MESSAGE_MAX_LENGTH, SUBJECT_MAX_LENGTH } from '~/lib/constants.ts';
import { dbFixture } from '../support/fixture.ts';
import { ACME, GLOBEX, PEOPLE, createUser, openTicket, type DbStack } from '../support/db.ts';

describe('database checks', () => {
  const db = dbFixture();

  it('the seed: people, workspaces, ~40 Acme requests in every status with replies and notes, history and an invitation', async () => {
    const q = async (sql: string, params: unknown[] = []) => (await db.sql(sql, params)).rows;
    expect(await q(`select slug, name from workspaces where slug in ('acme', 'globex') order by slug`)).toEqual([
      { slug: 'acme', name: 'Acme Support' },
      { slug: 'globex', name: 'Globex' },
    ]);
    const roles = await q(
      `select u.email, w.slug, m.role from memberships m join auth.users u on u.id = m.user_id join workspaces w on w.id = m.workspace_id where w.slug in ('acme', 'globex') order by 1`,
    );
    expect(roles).toEqual(
      expect.arrayContaining([
        { email: 'admin@acme.test', slug: 'acme', role: 'admin' },
        { email: 'agent2@acme.test', slug: 'acme', role: 'agent' },
        { email: 'agent@acme.test', slug: 'acme', role: 'agent' },
        { email: 'admin@globex.test', slug: 'globex', role: 'admin' },
        { email: 'agent@globex.test', slug: 'globex', role: 'agent' },
      ]),
    );
    const statuses = await q(
      `select status, count(*)::int n from tickets where workspace_id = $1 and subject not like 'Concurrent%' group by 1`,
      [ACME],
    );
    expect(statuses.map((r) => r.status).sort()).toEqual(['closed', 'new', 'open', 'pending', 'solved']);
    expect(
      (await q(`select count(*)::int n from messages where workspace_id = $1 and kind = 'note'`, [ACME]))[0].n,
    ).toBeGreaterThan(10);
    expect(
      (
        await q(
          `select count(*)::int n from tickets t join auth.users u on u.id = t.requester_id where u.email = 'customer3@example.test' and t.workspace_id = $1`,
          [GLOBEX],
        )
      )[0].n,
    ).toBeGreaterThan(0);
    expect(
      (await q(`select count(*)::int n from ticket_events where type = 'status' and workspace_id = $1`, [ACME]))[0].n,
    ).toBeGreaterThan(20);
    expect(
      (await q(`select count(*)::int n from invitations where email = 'newagent@acme.test' and accepted_at is null`))[0]
        .n,
    ).toBe(1);
  });

  it('create_ticket: subject 1–200 and body 1–20 000 characters', async () => {
    const c = await db.as('acmeCustomer');
    const create = (subject: string, body: string) =>
      c.rpc('create_ticket', { p_workspace_slug: 'acme', p_subject: subject, p_body: body });
    expect((await create('x'.repeat(SUBJECT_MAX_LENGTH), 'y'.repeat(MESSAGE_MAX_LENGTH))).error).toBeNull();
    for (const [subject, body] of [
      ['', 'ok'],
      ['   ', 'ok'],
      ['x'.repeat(SUBJECT_MAX_LENGTH + 1), 'ok'],
      ['ok', ''],
      ['ok', 'y'.repeat(MESSAGE_MAX_LENGTH + 1)],
    ]) {
      expect((await create(subject, body)).error?.code, `${subject.length}/${body.length}`).toBe('23514');
    }
    expect(
      (await c.rpc('create_ticket', { p_workspace_slug: 'nope', p_subject: 'x', p_body: 'y' })).error,
    ).toMatchObject({ code: 'P0001', message: 'not_found' });
  });

  it('create_ticket returns the id and the next number of that workspace', async () => {
    const before = (await db.sql('select ticket_seq from workspaces where id = $1', [GLOBEX])).rows[0].ticket_seq;
    const { data, error } = await (await db.as('acmeCustomer')).rpc('create_ticket', {
      p_workspace_slug: 'globex',
      p_subject: 'Hi',
      p_body: 'There',
    });
    expect(error).toBeNull();
    expect(data).toEqual([{ id: expect.any(String), number: before + 1 }]);
  });

  it('post_message: body 1–20 000, kind reply or note', async () => {
    const t = await openTicket(db);
    const agent = await db.as('acmeAgent');
    expect((await agent.rpc('post_message', { p_ticket_id: t.id, p_body: '' })).error?.code).toBe('23514');
    expect(
      (await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'y'.repeat(MESSAGE_MAX_LENGTH + 1) })).error?.code,
    ).toBe('23514');
    expect((await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'hi', p_kind: 'shout' })).error?.code).toBe(
      '23514',
    );
    expect(
      (await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'y'.repeat(MESSAGE_MAX_LENGTH) })).error,
    ).toBeNull();
  });

  it('create_workspace: names 1–80, slugs 3–40 in the pattern and not reserved; the creator is its admin', async () => {
    const c = await db.as('acmeCustomer2');
    const make = (name: string, slug: string) => c.rpc('create_workspace', { p_name: name, p_slug: slug });
    for (const [name, slug] of [
      ['', 'fine-slug'],
      ['x'.repeat(81), 'fine-slug'],
      ['Ok', 'ab'],
      ['Ok', 'a'.repeat(41)],
      ['Ok', 'Bad_Slug'],
      ['Ok', '-lead'],
      ['Ok', 'dou--ble'],
      ['Ok', 'trail-'],
    ]) {
      expect((await make(name, slug)).error?.code, `${name}/${slug}`).toBe('23514');
    }
    for (const reserved of [
      'new',
      'admin',
      'api',
      'app',
      'login',
      'logout',
      'support',
      'settings',
      'account',
      'onboarding',
      'invite',
      'auth',
    ]) {
      expect((await make('Ok', reserved)).error?.code, reserved).toBe('23514');
    }
    const { data, error } = await make('x'.repeat(80), 'a'.repeat(40));
    expect(error).toBeNull();
    const { rows } = await db.sql('select role from memberships where workspace_id = $1 and user_id = $2', [
      data.id,
      PEOPLE.acmeCustomer2.id,
    ]);
    expect(rows).toEqual([{ role: 'admin' }]);
    expect((await make('Again', 'a'.repeat(40))).error).toMatchObject({ code: 'P0001', message: 'slug_taken' });
    expect((await make('Case', 'ACME')).error).toMatchObject({ message: 'slug_taken' });
  });

  it('profiles: created on sign-up from display_name or the email local part, at most 60 characters', async () => {
    const id = await createUser(db, 'pat.jones@example.test');
    expect((await db.sql('select display_name from profiles where user_id = $1', [id])).rows[0].display_name).toBe(
      'pat.jones',
    );
    const long = crypto.randomUUID();
    await db.sql(
      `insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
       values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', 'long@example.test', jsonb_build_object('display_name', $2::text), now(), now())`,
      [long, 'N'.repeat(70)],
    );
    expect((await db.sql('select display_name from profiles where user_id = $1', [long])).rows[0].display_name).toBe(
      'N'.repeat(60),
    );
  });

  it('canned replies: title 1–80, body 1–5 000', async () => {
    const admin = await db.as('acmeAdmin');
    const add = (title: string, body: string) =>
      admin.from('canned_replies').insert({ workspace_id: ACME, title, body });
    expect((await add('t'.repeat(80), 'b'.repeat(5000))).error).toBeNull();
    for (const [t, b] of [
      ['', 'b'],
      ['t'.repeat(81), 'b'],
      ['t', ''],
      ['t', 'b'.repeat(5001)],
    ])
      expect((await add(t, b)).error?.code).toBe('23514');
  });

  it('invitations: citext email, sha-256 token hash, expiring after 7 days', async () => {
    const admin = await db.as('acmeAdmin');
    const hash = 'f'.repeat(64);
    const { data, error } = await admin
      .from('invitations')
      .insert({
        workspace_id: ACME,
        email: 'New.Person@Example.test',
        token_hash: hash,
        invited_by: PEOPLE.acmeAdmin.id,
        role: 'agent',
      })
      .select('id')
      .single();
    expect(error).toBeNull();
    const { rows } = await db.sql(
      `select email = 'new.person@example.test' as same, round(extract(epoch from expires_at - created_at) / 86400) as days from invitations where id = $1`,
      [data!.id],
    );
    expect(rows[0]).toEqual({ same: true, days: '7' });
    expect(
      (
        await admin.from('invitations').insert({
          workspace_id: ACME,
          email: 'x@example.test',
          token_hash: 'not-a-hash',
          invited_by: PEOPLE.acmeAdmin.id,
        })
      ).error?.code,
    ).toBe('23514');
  });

  it('the last admin stays: no demotion or removal, even by themselves; with a second admin, either may go', async () => {
    const admin = await db.as('acmeAdmin');
    const demote = await admin
      .from('memberships')
      .update({ role: 'agent' })
      .eq('workspace_id', ACME)
      .eq('user_id', PEOPLE.acmeAdmin.id);
    expect(demote.error).toMatchObject({ code: 'P0001', message: 'last_admin' });
    const leave = await admin.from('memberships').delete().eq('workspace_id', ACME).eq('user_id', PEOPLE.acmeAdmin.id);
    expect(leave.error).toMatchObject({ code: 'P0001', message: 'last_admin' });
    // Promote an agent; now the first admin may step down, and the new one is the last.
    expect(
      (
        await admin
          .from('memberships')
          .update({ role: 'admin' })
          .eq('workspace_id', ACME)
          .eq('user_id', PEOPLE.acmeAgent2.id)
      ).error,
    ).toBeNull();
    expect(
      (
        await admin
          .from('memberships')
          .update({ role: 'agent' })
          .eq('workspace_id', ACME)
          .eq('user_id', PEOPLE.acmeAdmin.id)
      ).error,
    ).toBeNull();
    const second = await db.as('acmeAgent2');
    expect(
      (await second.from('memberships').delete().eq('workspace_id', ACME).eq('user_id', PEOPLE.acmeAgent2.id)).error,
    ).toMatchObject({ message: 'last_admin' });
    // Restore the seed's roles.
    expect(
      (
        await second
          .from('memberships')
          .update({ role: 'admin' })
          .eq('workspace_id', ACME)
          .eq('user_id', PEOPLE.acmeAdmin.id)
      ).error,
    ).toBeNull();
    expect(
      (
        await second
          .from('memberships')
          .update({ role: 'agent' })
          .eq('workspace_id', ACME)
          .eq('user_id', PEOPLE.acmeAgent2.id)
      ).error,
    ).toBeNull();
  });

  it("assignees must be members of the ticket's workspace, whoever writes", async () => {
    const t = await openTicket(db);
    const admin = await db.as('acmeAdmin');
    for (const outsider of [PEOPLE.globexAgent.id, PEOPLE.acmeCustomer2.id]) {
      const { error } = await admin.from('tickets').update({ assignee_id: outsider }).eq('id', t.id);
      expect(error).toMatchObject({ code: 'P0001', message: 'assignee_not_member' });
    }
    await expect(
      db.sql('update tickets set assignee_id = $2 where id = $1', [t.id, PEOPLE.globexAdmin.id]),
    ).rejects.toThrow('assignee_not_member');
    expect((await admin.from('tickets').update({ assignee_id: PEOPLE.acmeAgent.id }).eq('id', t.id)).error).toBeNull();
  });

  it('a person who asked for or holds a ticket stays while it does; a member leaving gives up their open tickets first', async () => {
    const [asked, holds, closed, nothing] = await Promise.all([1, 2, 3, 4].map(() => createUser(db)));
    for (const m of [holds, closed])
      await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'agent')`, [ACME, m]);
    const open = (
      await db.sql(
        `insert into tickets (workspace_id, requester_id, subject, assignee_id) values ($1, $2, 'Held', $3) returning id`,
        [ACME, asked, holds],
      )
    ).rows[0].id;
    await db.sql(
      `insert into tickets (workspace_id, requester_id, subject, assignee_id, status) values ($1, $2, 'Done', $3, 'closed')`,
      [ACME, asked, closed],
    );
    const remove = (table: 'auth.users' | 'profiles', id: string) =>
      db
        .sql(`delete from ${table} where ${table === 'profiles' ? 'user_id' : 'id'} = $1`, [id])
        .then(() => 'deleted')
        .catch((e: { code: string }) => e.code);
    // The requester, and the assignee of a closed ticket: refused, account and profile alike.
    for (const id of [asked, closed]) {
      expect(await remove('auth.users', id)).toBe('23503');
      expect(await remove('profiles', id)).toBe('23503');
    }
    const left = await db.sql(
      `select (select count(*)::int from auth.users where id = any($1)) as users, (select count(*)::int from profiles where user_id = any($1)) as profiles`,
      [[asked, closed]],
    );
    expect(left.rows[0]).toEqual({ users: 2, profiles: 2 });
    // The assignee of an open ticket leaves the workspace as the account goes: the ticket is unassigned, the account deleted.
    expect(await remove('auth.users', holds)).toBe('deleted');
    expect((await db.sql('select assignee_id from tickets where id = $1', [open])).rows[0].assignee_id).toBeNull();
    expect((await db.sql('select count(*)::int as n from profiles where user_id = $1', [holds])).rows[0].n).toBe(0);
    // Nobody's ticket: the account goes, and its profile with it.
    expect(await remove('auth.users', nothing)).toBe('deleted');
  });

  it('portal_workspace: id, name and slug by slug for anyone, nothing for unknown slugs; visitors read no columns', async () => {
    const anon = db.anon();
    expect((await anon.rpc('portal_workspace', { p_slug: 'acme' })).data).toEqual([
      { id: ACME, slug: 'acme', name: 'Acme Support' },
    ]);
    expect((await anon.rpc('portal_workspace', { p_slug: 'nope' })).data).toEqual([]);
    expect((await anon.from('workspaces').select('created_by')).error?.code).toBe('42501');
    expect((await anon.from('workspaces').select('created_at')).error?.code).toBe('42501');
    expect((await anon.from('workspaces').select('ticket_seq')).error?.code).toBe('42501');
  });

  it('claim_next_ticket: the oldest unassigned new or open request, for members only', async () => {
    await db.sql(`update tickets set assignee_id = $2 where workspace_id = $1 and assignee_id is null`, [
      GLOBEX,
      PEOPLE.globexAgent.id,
    ]);
    const customer = await db.as('globexCustomer');
    const open = async (subject: string) =>
      (await customer.rpc('create_ticket', { p_workspace_slug: 'globex', p_subject: subject, p_body: 'Hello' }))
        .data[0];
    const older = await open('First in line');
    await open('Second in line');
    expect((await (await db.as('acmeAgent')).rpc('claim_next_ticket', { p_workspace_id: GLOBEX })).error).toMatchObject(
      { message: 'forbidden' },
    );
    expect(
      (await (await db.as('globexCustomer')).rpc('claim_next_ticket', { p_workspace_id: GLOBEX })).error,
    ).toMatchObject({ message: 'forbidden' });
    const admin = await db.as('globexAdmin');
    const { data, error } = await admin.rpc('claim_next_ticket', { p_workspace_id: GLOBEX }).maybeSingle();
    expect(error).toBeNull();
    expect(data).toMatchObject({ id: older.id, assignee_id: PEOPLE.globexAdmin.id, status: 'open' });
    expect((await admin.rpc('claim_next_ticket', { p_workspace_id: GLOBEX }).maybeSingle()).data).toMatchObject({
      assignee_id: PEOPLE.globexAdmin.id,
    });
    const empty = await admin.rpc('claim_next_ticket', { p_workspace_id: GLOBEX }).maybeSingle();
    expect(empty).toMatchObject({ data: null, error: null });
  });

  it('search: subject and public replies are searchable; internal notes never enter the vector', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Blender making noises');
    const agent = await db.as('acmeAgent');
    await agent.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'Customer seems furious, offer voucher',
      p_kind: 'note',
    });
    await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Try the reset button underneath' });
    const hit = async (q: string) =>
      (
        (await agent.from('tickets').select('id').eq('id', t.id).textSearch('search', q, { config: 'english' })).data ??
        []
      ).length;
    expect(await hit('blender')).toBe(1);
    expect(await hit('smoking')).toBe(1); // the first message
    expect(await hit('underneath')).toBe(1);
    expect(await hit('voucher')).toBe(0);
    const { rows } = await db.sql(`select search::text like '%voucher%' as leaked from tickets where id = $1`, [t.id]);
    expect(rows[0].leaked).toBe(false);
  });

  it('search_tickets: agents find subject, public replies and internal notes; requesters their own requests, never by a note', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Kettle whistles oddly');
    const agent = await db.as('acmeAgent');
    await agent.rpc('post_message', {
      p_ticket_id: t.id,
      p_body: 'Supplier batch recall suspected (zeppelin)',
      p_kind: 'note',
    });
    await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Please descale it with vinegar' });
    const ids = async (who: Parameters<DbStack['as']>[0], q: string, ws = ACME) => {
      const { data, error } = await (await db.as(who)).rpc('search_tickets', { p_workspace_id: ws, p_query: q });
      expect(error, `${who} ${q}`).toBeNull();
      return (data as { id: string }[]).map((r) => r.id);
    };
    for (const q of ['kettle', 'vinegar', 'zeppelin', '"batch recall"', 'kettle -giraffe'])
      expect(await ids('acmeAgent', q), q).toEqual([t.id]);
    expect(await ids('acmeAdmin', 'zeppelin')).toEqual([t.id]);
    expect(await ids('acmeAgent', 'kettle -vinegar')).toEqual([]);
    expect(await ids('acmeCustomer', 'vinegar')).toEqual([t.id]);
    expect(await ids('acmeCustomer', 'zeppelin')).toEqual([]);
    expect(await ids('acmeCustomer2', 'kettle')).toEqual([]);
    expect(await ids('globexAgent', 'kettle')).toEqual([]);
    expect(await ids('globexAgent', 'zeppelin', GLOBEX)).toEqual([]);
    expect((await db.anon().rpc('search_tickets', { p_workspace_id: ACME, p_query: 'kettle' })).error).not.toBeNull();
    // Like the table: PostgREST filters, order, range and an exact count on top.
    const page = await agent
      .rpc('search_tickets', { p_workspace_id: ACME, p_query: 'zeppelin or kettle' }, { count: 'exact' })
      .in('status', ['new', 'open'])
      .select('id, number, status, last_message_at') // PostgREST orders an RPC's rows by selected columns only
      .order('last_message_at', { ascending: false })
      .order('id', { ascending: false })
      .range(0, 24);
    expect(page.error, JSON.stringify(page.error)).toBeNull();
    expect(page.count).toBe(1);
    expect(page.data).toEqual([{ id: t.id, number: t.number, status: 'open', last_message_at: expect.any(String) }]);
    expect(
      (await agent.rpc('search_tickets', { p_workspace_id: ACME, p_query: 'zeppelin' }).eq('status', 'solved')).data,
    ).toEqual([]);
    expect(await ids('acmeAgent', '')).toEqual([]);
  });

  it('accept_invitation: the invited email joins once with the invited role; used, revoked, expired or unknown tokens are invalid', async () => {
    const { createHash, randomBytes } = await import('node:crypto');
    const invite = async (email: string, role = 'agent', extra = '') => {
      const token = randomBytes(32).toString('base64url');
      const hash = createHash('sha256').update(token).digest('hex');
      await db.sql(
        `insert into invitations (workspace_id, email, role, token_hash, invited_by) values ($1, $2, $3, $4, $5)`,
        [GLOBEX, email, role, hash, PEOPLE.globexAdmin.id],
      );
      if (extra) await db.sql(`update invitations set ${extra} where token_hash = $1`, [hash]);
      return token;
    };
    const customer = await db.as('acmeCustomer2'); // customer2@example.test
    const accept = (token: string, c = customer) => c.rpc('accept_invitation', { p_token: token });

    const other = await invite('someone.else@example.test');
    expect((await accept(other)).error).toMatchObject({ code: 'P0001', message: 'invitation_email_mismatch' });
    expect((await accept('not-a-token')).error).toMatchObject({
      code: 'P0001',
      message: 'invitation_invalid',
      details: 'unknown',
    });
    expect((await accept(await invite('customer2@example.test', 'agent', 'revoked_at = now()'))).error).toMatchObject({
      message: 'invitation_invalid',
      details: 'revoked',
    });
    expect(
      (await accept(await invite('customer2@example.test', 'agent', `expires_at = now() - interval '1 second'`))).error,
    ).toMatchObject({ message: 'invitation_invalid', details: 'expired' });
    expect((await db.anon().rpc('accept_invitation', { p_token: other })).error).not.toBeNull();

    const token = await invite('Customer2@Example.test', 'agent');
    const { data, error } = await accept(token);
    expect(error).toBeNull();
    expect(data).toEqual([{ workspace_id: GLOBEX, slug: 'globex', role: 'agent' }]);
    expect((await accept(token)).error).toMatchObject({ message: 'invitation_invalid', details: 'accepted' });
    // Now a Globex agent: the workspace's tickets are visible.
    expect(
      ((await customer.from('tickets').select('id').eq('workspace_id', GLOBEX)).data ?? []).length,
    ).toBeGreaterThan(0);
    // A second invitation as admin promotes; one as agent never demotes.
    expect((await accept(await invite('customer2@example.test', 'admin'))).data).toEqual([
      { workspace_id: GLOBEX, slug: 'globex', role: 'admin' },
    ]);
    expect((await accept(await invite('customer2@example.test', 'agent'))).data).toEqual([
      { workspace_id: GLOBEX, slug: 'globex', role: 'admin' },
    ]);
    await db.sql(`delete from memberships where workspace_id = $1 and user_id = $2`, [GLOBEX, PEOPLE.acmeCustomer2.id]);
  });

  it('a PostgREST request without claims is not the platform', async () => {
    const { rows } = await db.sql(`select private.is_system() as direct`);
    expect(rows[0].direct).toBe(true);
    // The role PostgREST switches to, without any request.jwt.claims: not the platform.
    const c = await db
      .sql(`begin; set local role authenticated; select private.is_system() as no_claims; rollback;`)
      .catch((e) => e);
    expect(Array.isArray(c) ? (c as pg.QueryResult[]).find((r) => r.command === 'SELECT')?.rows[0].no_claims : c).toBe(
      false,
    );
  });

  it('private schema: anon has no way in; the API roles execute the policy and state machine helpers only, never a trigger function', async () => {
    const { rows } = await db.sql(
      `select r.rolname, has_schema_privilege(r.rolname, 'private', 'usage') as usage,
              array(select p.proname::text from pg_proc p where p.pronamespace = 'private'::regnamespace
                     and has_function_privilege(r.rolname, p.oid, 'execute') order by 1) as fns
         from pg_roles r where r.rolname in ('anon', 'authenticated') order by 1`,
    );
    const helpers = [
      // The reports' range check (92_satisfaction.sql), as csat_report and agent_report's caller.
      'admin_report_range',
      'admin_workspaces',
      // The attachments bucket's storage.objects policies (40_attachments.sql).
      'attachment_recorded',
      'can_see_profile',
      'change_status',
      'check_transition',
      // customers.company and the companies' domain check (58_customers.sql), which run as the writer.
      'company_domain',
      // ticket_fields' choices check (58_ticket_fields.sql), as the writer.
      'field_options_ok',
      // The tickets a follower reads (20_tickets.sql), in the tickets' read policy.
      'followed_tickets',
      'is_admin',
      'is_agent',
      // The open statuses and the backlog (20_tickets.sql), asked by claim_next_ticket and workspace_report.
      'is_backlog',
      'is_member',
      'is_open',
      'is_system',
      // Tags (52_triage.sql): the tags policy's check, and the tag a bulk change names (bulk_update_tickets
      // runs as its caller).
      'may_create_tags',
      // Saved views (89_saved_views.sql): the write policy's check and the filters' shape check, as the writer.
      'may_manage_view',
      'may_upload_attachment',
      // The help bucket's upload policy: a member's limits (65_help_center.sql).
      'may_upload_help_image',
      // The help center's editing channel (65_help_center.sql), as may_use_ticket_channel.
      'may_use_help_article_channel',
      'may_use_ticket_channel',
      'member_workspaces',
      // A ticket's first empty required field (58_ticket_fields.sql), which bulk_update_tickets asks as its caller.
      'missing_required_field',
      // The notification kinds' checks and Tend's defaults (85_notifications.sql): the tables' checks and
      // notification_preferences, which run as the member.
      'notification_builtin',
      'notification_kinds',
      // workspace_report's percentiles, as its caller (60_reports.sql).
      'report_percentiles',
      // rules' shape check (95_rules.sql), which runs as the writer.
      'rule_shape_problem',
      'saved_view_filters_ok',
      'search_ticket_ids',
      'status_after_reply',
      'tag_named',
      'ticket_actor',
      // canned_replies' placeholder check (45_canned_replies.sql), which runs as the writer.
      'unknown_placeholders',
    ];
    expect(rows).toEqual([
      { rolname: 'anon', usage: false, fns: [] },
      { rolname: 'authenticated', usage: true, fns: helpers },
    ]);
    // On a session of its own: the refused statement leaves its transaction aborted until the rollback.
    const session = new pg.Client({ connectionString: db.stack.dbUrl });
    await session.connect();
    try {
      await session.query('begin');
      await session.query('set local role anon');
      await expect(session.query(`select private.is_member($1)`, [ACME])).rejects.toThrow(
        /permission denied for schema private/,
      );
      await session.query('rollback');
    } finally {
      await session.end();
    }
    // PostgREST does not expose the schema at all.
    expect((await (await db.as('acmeAgent')).schema('private').rpc('is_member', { ws: ACME })).error).not.toBeNull();
  });

  it("embeds names through the profile keys, within profiles' own RLS", async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Embed me');
    await db.sql('update tickets set assignee_id = $2 where id = $1', [t.id, PEOPLE.acmeAgent.id]);
    const select =
      'number, requester:profiles!tickets_requester_profile_fkey(display_name), assignee:profiles!tickets_assignee_profile_fkey(display_name)';
    const forAgent = await (await db.as('acmeAgent2')).from('tickets').select(select).eq('id', t.id).single();
    expect(forAgent.error).toBeNull();
    expect(forAgent.data).toMatchObject({
      requester: { display_name: 'Casey Customer' },
      assignee: { display_name: 'Alex Agent' },
    });
    const forCustomer = await (await db.as('acmeCustomer')).from('tickets').select(select).eq('id', t.id).single();
    expect(forCustomer.data).toMatchObject({
      requester: { display_name: 'Casey Customer' },
      assignee: { display_name: 'Alex Agent' },
    });
    const thread = await (await db.as('acmeCustomer'))
      .from('messages')
      .select('body, author:profiles!messages_author_profile_fkey(display_name)')
      .eq('ticket_id', t.id);
    expect(thread.data).toEqual([{ body: 'Please help, it is smoking.', author: { display_name: 'Casey Customer' } }]);
    const members = await (await db.as('globexAgent'))
      .from('memberships')
      .select('role, profile:profiles!memberships_user_profile_fkey(display_name)')
      .eq('workspace_id', GLOBEX);
    expect(members.data).toEqual(
      expect.arrayContaining([{ role: 'admin', profile: { display_name: 'Grace Globex' } }]),
    );
  });

  it('refuses a message to a closed ticket on a direct insert too, whoever writes it', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Closed for direct writes');
    await db.sql(`update tickets set status = 'solved' where id = $1`, [t.id]);
    await db.sql(`update tickets set status = 'closed' where id = $1`, [t.id]);
    for (const who of ['acmeCustomer', 'acmeAgent', 'acmeAdmin'] as const) {
      for (const kind of who === 'acmeCustomer' ? ['reply'] : ['reply', 'note']) {
        const { error } = await (await db.as(who)).from('messages').insert({ ticket_id: t.id, kind, body: 'Too late' });
        expect(error, `${who} ${kind}`).toMatchObject({ code: 'P0001', message: 'ticket_closed' });
      }
    }
    expect((await db.sql(`select count(*)::int n from messages where ticket_id = $1`, [t.id])).rows[0].n).toBe(1);
  });

  it('moves the status on a direct reply like post_message: the requester reopens, an agent opens a new ticket', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Direct replies');
    const agent = await db.as('acmeAgent');
    const customer = await db.as('acmeCustomer');
    const status = async () => (await db.sql(`select status from tickets where id = $1`, [t.id])).rows[0].status;
    expect((await agent.from('messages').insert({ ticket_id: t.id, kind: 'note', body: 'Looking' })).error).toBeNull();
    expect(await status()).toBe('new');
    expect((await agent.from('messages').insert({ ticket_id: t.id, kind: 'reply', body: 'On it' })).error).toBeNull();
    expect(await status()).toBe('open');
    expect((await agent.from('tickets').update({ status: 'pending' }).eq('id', t.id)).error).toBeNull();
    expect(
      (await customer.from('messages').insert({ ticket_id: t.id, kind: 'reply', body: 'Here you go' })).error,
    ).toBeNull();
    expect(await status()).toBe('open');
    const { rows } = await db.sql(
      `select "from", "to", actor_id from ticket_events where ticket_id = $1 and type = 'status' order by id`,
      [t.id],
    );
    expect(rows).toEqual([
      { from: 'new', to: 'open', actor_id: PEOPLE.acmeAgent.id },
      { from: 'open', to: 'pending', actor_id: PEOPLE.acmeAgent.id },
      { from: 'pending', to: 'open', actor_id: PEOPLE.acmeCustomer.id },
    ]);
  });

  it('the platform through the API (service_role, e.g. inbound email) follows the message rules; a direct database session does not', async () => {
    const service = db.service();
    const t = await openTicket(db, 'acmeCustomer', 'Inbound email reply');
    await db.sql(`update tickets set status = 'solved' where id = $1`, [t.id]);
    const reply = await service.from('messages').insert({
      ticket_id: t.id,
      author_id: PEOPLE.acmeCustomer.id,
      kind: 'reply',
      body: 'Replying from my mail client',
    });
    expect(reply.error).toBeNull();
    expect((await db.sql(`select status from tickets where id = $1`, [t.id])).rows[0].status).toBe('open');
    await db.sql(`update tickets set status = 'solved' where id = $1`, [t.id]);
    await db.sql(`update tickets set status = 'closed' where id = $1`, [t.id]);
    const late = await service
      .from('messages')
      .insert({ ticket_id: t.id, author_id: PEOPLE.acmeCustomer.id, kind: 'reply', body: 'One more thing' });
    expect(late.error).toMatchObject({ code: 'P0001', message: 'ticket_closed' });
    // Seed and imports write history as given.
    await db.sql(`insert into messages (ticket_id, author_id, kind, body) values ($1, $2, 'reply', 'Imported')`, [
      t.id,
      PEOPLE.acmeCustomer.id,
    ]);
    expect((await db.sql(`select status from tickets where id = $1`, [t.id])).rows[0].status).toBe('closed');
  });

  it('traffic cop: a last_seen_message_id that is not a message of this ticket has seen nothing', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Stale page, odd id');
    const other = await openTicket(db, 'acmeCustomer', 'Another thread');
    const otherMessage = (await db.sql(`select id from messages where ticket_id = $1`, [other.id])).rows[0].id;
    const newest = (await db.sql(`select id from messages where ticket_id = $1`, [t.id])).rows[0].id;
    const agent = await db.as('acmeAgent');
    for (const seen of [crypto.randomUUID(), otherMessage]) {
      const { error } = await agent.rpc('post_message', {
        p_ticket_id: t.id,
        p_body: 'Hello',
        p_last_seen_message_id: seen,
      });
      expect(error).toMatchObject({ code: 'P0001', message: 'ticket_changed', details: newest });
    }
    expect(
      (await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'Hello', p_last_seen_message_id: newest })).error,
    ).toBeNull();
  });

  it('unassigns the unfinished tickets of a member who leaves or is removed; closed tickets keep their assignee', async () => {
    const leaver = await createUser(db, 'leaver@acme.test');
    await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'agent')`, [ACME, leaver]);
    const open = await openTicket(db, 'acmeCustomer', 'Held by the leaver');
    const closed = await openTicket(db, 'acmeCustomer', 'Closed by the leaver');
    await db.sql(`update tickets set assignee_id = $2 where id = any($1)`, [[open.id, closed.id], leaver]);
    await db.sql(`update tickets set status = 'solved' where id = $1`, [closed.id]);
    await db.sql(`update tickets set status = 'closed' where id = $1`, [closed.id]);
    const admin = await db.as('acmeAdmin');
    const removed = await admin.from('memberships').delete().eq('workspace_id', ACME).eq('user_id', leaver).select();
    expect(removed.error).toBeNull();
    expect(removed.data).toHaveLength(1);
    const { rows } = await db.sql(`select id, assignee_id from tickets where id = any($1)`, [[open.id, closed.id]]);
    expect(Object.fromEntries(rows.map((r) => [r.id, r.assignee_id]))).toEqual({
      [open.id]: null,
      [closed.id]: leaver,
    });
    const event = await db.sql(
      `select "from", "to", actor_id from ticket_events where ticket_id = $1 and type = 'assignee' order by id desc limit 1`,
      [open.id],
    );
    expect(event.rows[0]).toEqual({ from: leaver, to: null, actor_id: PEOPLE.acmeAdmin.id });

    // An agent leaving by themselves: the same, recorded as theirs.
    await db.sql(`insert into memberships (workspace_id, user_id, role) values ($1, $2, 'agent')`, [
      ACME,
      PEOPLE.acmeCustomer2.id,
    ]);
    const held = await openTicket(db, 'acmeCustomer', 'Held by a departing agent');
    await db.sql(`update tickets set assignee_id = $2 where id = $1`, [held.id, PEOPLE.acmeCustomer2.id]);
    const self = await (await db.as('acmeCustomer2'))
      .from('memberships')
      .delete()
      .eq('workspace_id', ACME)
      .eq('user_id', PEOPLE.acmeCustomer2.id)
      .select();
    expect(self.error).toBeNull();
    expect(self.data).toHaveLength(1);
    expect((await db.sql(`select assignee_id from tickets where id = $1`, [held.id])).rows[0].assignee_id).toBeNull();
  });

  it('stores invitation emails trimmed and lower-case, whatever is sent', async () => {
    const admin = await db.as('acmeAdmin');
    const { data, error } = await admin
      .from('invitations')
      .insert({
        workspace_id: ACME,
        email: '  Mixed.Case@Example.TEST ',
        token_hash: 'e'.repeat(64),
        invited_by: PEOPLE.acmeAdmin.id,
      })
      .select('email')
      .single();
    expect(error).toBeNull();
    expect(data).toEqual({ email: 'mixed.case@example.test' });
    const tooLong = await admin.from('invitations').insert({
      workspace_id: ACME,
      email: `${'a'.repeat(64)}@${'b'.repeat(186)}.test`,
      token_hash: 'd'.repeat(64),
      invited_by: PEOPLE.acmeAdmin.id,
    });
    expect(tooLong.error?.code).toBe('23514');
    const notAnEmail = await admin.from('invitations').insert({
      workspace_id: ACME,
      email: 'not an email',
      token_hash: 'c'.repeat(64),
      invited_by: PEOPLE.acmeAdmin.id,
    });
    expect(notAnEmail.error?.code).toBe('23514');
  });

  it("admins change a membership's role only; invitations are accepted through accept_invitation, not by writing accepted_at", async () => {
    const admin = await db.as('acmeAdmin');
    const move = await admin
      .from('memberships')
      .update({ user_id: PEOPLE.acmeCustomer.id })
      .eq('workspace_id', ACME)
      .eq('user_id', PEOPLE.acmeAgent2.id);
    expect(move.error?.code).toBe('42501');
    const elsewhere = await admin
      .from('memberships')
      .update({ workspace_id: GLOBEX })
      .eq('workspace_id', ACME)
      .eq('user_id', PEOPLE.acmeAgent2.id);
    expect(elsewhere.error?.code).toBe('42501');
    const { rows } = await db.sql(`select id from invitations where workspace_id = $1 limit 1`, [ACME]);
    const accept = await admin
      .from('invitations')
      .update({ accepted_at: new Date().toISOString() })
      .eq('id', rows[0].id);
    expect(accept.error?.code).toBe('42501');
    const preAccepted = await admin.from('invitations').insert({
      workspace_id: ACME,
      email: 'pre@example.test',
      token_hash: 'b'.repeat(64),
      invited_by: PEOPLE.acmeAdmin.id,
      accepted_at: new Date().toISOString(),
    });
    expect(preAccepted.error?.code).toBe('42501');
    // A resend is a new token; the database gives it a new expiry.
    const resend = await admin
      .from('invitations')
      .update({ token_hash: '9'.repeat(64) })
      .eq('id', rows[0].id)
      .select('id');
    expect(resend.data).toHaveLength(1);
  });

  it('profiles: a blank display name or email local part falls back to "user"', async () => {
    const id = crypto.randomUUID();
    await db.sql(
      `insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
       values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', null, '{"display_name": "   "}', now(), now())`,
      [id],
    );
    expect((await db.sql('select display_name from profiles where user_id = $1', [id])).rows[0].display_name).toBe(
      'user',
    );
    const padded = await createUser(db, 'x@example.test');
    expect((await db.sql('select display_name from profiles where user_id = $1', [padded])).rows[0].display_name).toBe(
      'x',
    );
  });

  it('schema hygiene: RLS on every table, policies name their roles, definer functions pin search_path, policy columns indexed', async () => {
    const noRls = await db.sql(
      `select relname from pg_class where relnamespace = 'public'::regnamespace and relkind in ('r', 'p') and not relrowsecurity`,
    );
    expect(noRls.rows).toEqual([]);
    const publicPolicies = await db.sql(
      `select tablename, policyname from pg_policies where schemaname = 'public' and 'public' = any(roles)`,
    );
    expect(publicPolicies.rows).toEqual([]);
    const loose = await db.sql(
      `select p.oid::regprocedure::text as fn from pg_proc p where p.pronamespace in ('public'::regnamespace, 'private'::regnamespace)
          and p.prosecdef and not coalesce(p.proconfig @> array['search_path=""'], false)`,
    );
    expect(loose.rows).toEqual([]);
    // Visitors call the portal lookups (a workspace by address, an old address's new one), the help
    // center's public reads (a renamed collection's old slug too) and its bounded recordings
    // (65_help_center.sql), and nothing else.
    const anonFns = await db.sql(
      `select proname::text from pg_proc where pronamespace = 'public'::regnamespace and has_function_privilege('anon', oid, 'execute') order by 1`,
    );
    expect(anonFns.rows.map((r) => r.proname)).toEqual([
      'count_help_view',
      'help_article',
      'help_center',
      'help_collection',
      'help_popular_articles',
      'help_renamed_collection',
      'help_search',
      'help_sitemap',
      'help_sitemap_workspaces',
      'help_spelling',
      'help_versions',
      'help_vote',
      'portal_workspace',
      'rate_ticket',
      'record_help_search_miss',
      'workspace_slug_redirect',
    ]);
    // One policy per table, operation and role.
    const dupes = await db.sql(
      `select tablename, cmd, r, count(*)::int from pg_policies, unnest(roles) r where schemaname = 'public' group by 1, 2, 3 having count(*) > 1`,
    );
    expect(dupes.rows).toEqual([]);
    // Columns policies filter by lead an index.
    for (const [table, column] of [
      ['tickets', 'workspace_id'],
      ['tickets', 'requester_id'],
      ['messages', 'workspace_id'],
      ['messages', 'ticket_id'],
      ['memberships', 'workspace_id'],
      ['memberships', 'user_id'],
      ['invitations', 'workspace_id'],
      ['ticket_events', 'workspace_id'],
      ['canned_replies', 'workspace_id'],
      ['profiles', 'user_id'],
    ]) {
      const { rows } = await db.sql(
        `select 1 from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0] where i.indrelid = $1::regclass and a.attname = $2`,
        [`public.${table}`, column],
      );
      expect(rows.length, `${table}.${column}`).toBeGreaterThan(0);
    }
  });
});
