// Workspace settings in the database (docs/product.md §2 /w/:slug/settings): admins rename the
// workspace, change its address and time zone; an old address still finds the workspace
// (workspace_slug_redirect) and is never another workspace's; everyone else changes nothing. And a user's
// own time zone (user_settings, /account): theirs alone, whatever their role.
import { describe, expect, it } from 'vitest';
import { dbFixture } from '../support/fixture.ts';
import { ACME, GLOBEX, PEOPLE, type Person } from '../support/db.ts';

describe('workspace settings', () => {
  const db = dbFixture();

  async function newWorkspace(slug: string) {
    const admin = await db.as('acmeAdmin');
    const { data, error } = await admin.rpc('create_workspace', { p_name: 'Settings Co', p_slug: slug });
    expect(error).toBeNull();
    return { admin, id: (data as { id: string }).id };
  }

  it('an admin changes name, address and time zone; the old address redirects, for anyone', async () => {
    const { admin, id } = await newWorkspace('settings-one');
    const { data, error } = await admin
      .from('workspaces')
      .update({ name: 'Renamed Co', slug: 'settings-two', time_zone: 'Europe/Berlin' })
      .eq('id', id)
      .select('name, slug, time_zone');
    expect(error).toBeNull();
    expect(data).toEqual([{ name: 'Renamed Co', slug: 'settings-two', time_zone: 'Europe/Berlin' }]);
    for (const client of [db.anon(), admin, await db.as('globexAgent')]) {
      expect((await client.rpc('workspace_slug_redirect', { p_slug: 'settings-one' })).data).toBe('settings-two');
      expect((await client.rpc('workspace_slug_redirect', { p_slug: ' Settings-One ' })).data).toBe('settings-two');
      expect((await client.rpc('workspace_slug_redirect', { p_slug: 'settings-two' })).data).toBeNull();
    }

    // Renamed again: both old addresses lead to the newest; back to the first, it stops redirecting.
    await admin.from('workspaces').update({ slug: 'settings-three' }).eq('id', id);
    expect((await db.anon().rpc('workspace_slug_redirect', { p_slug: 'settings-one' })).data).toBe('settings-three');
    expect((await db.anon().rpc('workspace_slug_redirect', { p_slug: 'settings-two' })).data).toBe('settings-three');
    await admin.from('workspaces').update({ slug: 'settings-one' }).eq('id', id);
    expect((await db.anon().rpc('workspace_slug_redirect', { p_slug: 'settings-one' })).data).toBeNull();
    expect((await db.anon().rpc('workspace_slug_redirect', { p_slug: 'settings-three' })).data).toBe('settings-one');

    // An address once used stays this workspace's: another may neither take nor start with it.
    const other = await newWorkspace('settings-other');
    expect(
      (await other.admin.from('workspaces').update({ slug: 'settings-three' }).eq('id', other.id)).error,
    ).toMatchObject({ message: 'slug_taken' });
    expect(
      (await other.admin.rpc('create_workspace', { p_name: 'Taker', p_slug: 'settings-two' })).error,
    ).toMatchObject({
      message: 'slug_taken',
    });
    expect((await db.anon().rpc('workspace_slug_redirect', { p_slug: 'settings-three' })).data).toBe('settings-one');
    expect((await db.anon().rpc('workspace_slug_redirect', { p_slug: 'settings-two' })).data).toBe('settings-one');
  });

  it('an address in use is refused (unique), an unknown time zone is bad_request', async () => {
    const { admin, id } = await newWorkspace('settings-taken');
    expect((await admin.from('workspaces').update({ slug: 'globex' }).eq('id', id)).error).toMatchObject({
      code: '23505',
    });
    expect((await admin.from('workspaces').update({ time_zone: 'Mars/Olympus' }).eq('id', id)).error).toMatchObject({
      code: 'P0001',
      message: 'bad_request',
    });
    const { data } = await admin.from('workspaces').select('slug, time_zone').eq('id', id).single();
    expect(data).toEqual({ slug: 'settings-taken', time_zone: 'UTC' });
  });

  it('agents, customers, other workspaces and anonymous visitors change nothing, nor read the history', async () => {
    const before = (await db.sql(`select name, slug, time_zone from workspaces where id = $1`, [ACME])).rows[0];
    const people: Person[] = ['acmeAgent', 'acmeCustomer', 'globexAdmin'];
    for (const person of people) {
      const c = await db.as(person);
      const { data, error } = await c
        .from('workspaces')
        .update({ name: 'Hijacked', slug: 'hijacked', time_zone: 'Asia/Tokyo' })
        .eq('id', ACME)
        .select('id');
      expect(error, person).toBeNull();
      expect(data, person).toEqual([]);
      expect((await c.from('workspace_slug_history').select('slug')).error, person).toMatchObject({ code: '42501' });
    }
    const anon = db.anon();
    expect((await anon.from('workspaces').update({ name: 'Hijacked' }).eq('id', ACME)).error).not.toBeNull();
    expect((await anon.from('workspace_slug_history').select('slug')).error).toMatchObject({ code: '42501' });
    expect((await db.sql(`select name, slug, time_zone from workspaces where id = $1`, [ACME])).rows[0]).toEqual(
      before,
    );
    // An agent sees the time zone of their own workspace only.
    const agent = await db.as('acmeAgent');
    expect((await agent.from('workspaces').select('time_zone').eq('id', ACME)).data).toEqual([{ time_zone: 'UTC' }]);
    expect((await agent.from('workspaces').select('time_zone').eq('id', GLOBEX)).data).toEqual([]);
  });

  it("a user's own time zone: set, changed and cleared by them (agent or requester), read by nobody else", async () => {
    const zoneOf = async (id: string) =>
      (await db.sql('select time_zone from user_settings where user_id = $1', [id])).rows[0]?.time_zone;
    for (const [person, zone] of [
      ['acmeAgent', 'Europe/Berlin'],
      ['acmeCustomer', 'America/New_York'],
    ] as const) {
      const c = await db.as(person);
      const set = (time_zone: string | null) =>
        c.from('user_settings').upsert({ time_zone }, { onConflict: 'user_id' });
      expect((await set('Asia/Tokyo')).error, person).toBeNull();
      expect((await set(zone)).error, person).toBeNull();
      expect((await c.from('user_settings').select('user_id, time_zone')).data, person).toEqual([
        { user_id: PEOPLE[person].id, time_zone: zone },
      ]);
      // As every page asks for it, with the bell (viewer_state): a requester in no workspace has none.
      const state = (await c.rpc('viewer_state')).data as { unread: number | null; time_zone: string | null };
      expect(state.time_zone, person).toBe(zone);
      expect(state.unread === null, person).toBe(person === 'acmeCustomer');
      // The agent's inbox carries the same answer in its own call (docs/decisions/082-page-calls.md).
      if (person === 'acmeAgent')
        expect((await c.rpc('inbox', { p_slug: 'acme' })).data, person).toMatchObject({ viewer: state });
      // An unknown zone: bad_request, the stored one kept. Null is automatic.
      expect((await set('Mars/Olympus')).error, person).toMatchObject({ code: 'P0001', message: 'bad_request' });
      expect(await zoneOf(PEOPLE[person].id), person).toBe(zone);
    }
    // A teammate, the workspace's admin, another requester, anonymous: nothing read, nothing changed.
    for (const person of ['acmeAgent2', 'acmeAdmin', 'acmeCustomer2'] as const) {
      const c = await db.as(person);
      for (const owner of [PEOPLE.acmeAgent.id, PEOPLE.acmeCustomer.id]) {
        expect((await c.from('user_settings').select('time_zone').eq('user_id', owner)).data, person).toEqual([]);
        await c.from('user_settings').update({ time_zone: 'Asia/Tokyo' }).eq('user_id', owner);
        const forged = await c.from('user_settings').insert({ user_id: owner, time_zone: 'Asia/Tokyo' });
        expect(forged.error?.code, person).toBe('42501');
      }
    }
    expect((await db.anon().from('user_settings').select('time_zone')).error).toMatchObject({ code: '42501' });
    expect((await db.anon().rpc('viewer_state')).error).toMatchObject({ code: '42501' });
    expect(await zoneOf(PEOPLE.acmeAgent.id)).toBe('Europe/Berlin');
    expect(await zoneOf(PEOPLE.acmeCustomer.id)).toBe('America/New_York');
    // Back to automatic.
    const agent = await db.as('acmeAgent');
    expect((await agent.from('user_settings').upsert({ time_zone: null }, { onConflict: 'user_id' })).error).toBeNull();
    expect(await zoneOf(PEOPLE.acmeAgent.id)).toBeNull();
  });
});
