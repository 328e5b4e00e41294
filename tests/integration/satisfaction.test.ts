// Satisfaction ratings on the real stack (issue 28 item 4; supabase/schemas/92_satisfaction.sql;
// docs/decisions/054-satisfaction-ratings.md): a solve asks once, the survey email and its links, the
// token (forged, another ticket's, expired, replayed), the settings, the report, and who may read and
// write what (row-level security per role).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messagesTo } from '../../scripts/lib/mail.ts';
import { waitFor } from '../../scripts/lib/wait.ts';
import { ACME, GLOBEX, PEOPLE, openTicket, startDbStack, type DbStack, type Person } from '../support/db.ts';

const DOMAIN = 'tend.localhost';
let db: DbStack;
let envDir: string;

beforeAll(async () => {
  envDir = mkdtempSync(path.join(os.tmpdir(), 'tend-csat-env-'));
  const envFile = path.join(envDir, '.env');
  writeFileSync(envFile, `APP_URL=http://localhost:3999\nINBOUND_EMAIL_DOMAIN=${DOMAIN}\n`);
  db = await startDbStack({ functionsEnvFile: envFile });
}, 120_000);
afterAll(async () => {
  await db?.teardown();
  rmSync(envDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await db.sql('delete from csat_settings');
});

async function setStatus(person: Person, ticketId: string, status: string) {
  const { error } = await (await db.as(person)).from('tickets').update({ status }).eq('id', ticketId);
  if (error) throw new Error(error.message);
}

/** A new request by the customer, assigned to the agent and solved by them. */
async function solvedTicket(subject: string, person: Person = 'acmeCustomer') {
  const t = await openTicket(db, person, subject);
  const agent = await db.as('acmeAgent');
  const { error } = await agent.from('tickets').update({ assignee_id: PEOPLE.acmeAgent.id }).eq('id', t.id);
  if (error) throw new Error(error.message);
  await setStatus('acmeAgent', t.id, 'solved');
  return t;
}

const saveSettings = async (who: Person, workspace: string, enabled: boolean, question: string) =>
  (await db.as(who)).rpc('save_csat_settings', { p_workspace_id: workspace, p_enabled: enabled, p_question: question });

const surveysOf = async (ticketId: string) =>
  (
    await db.sql(
      'select id, question, assignee_id, rating::text, comment, rated_at from csat_surveys where ticket_id = $1 order by created_at',
      [ticketId],
    )
  ).rows;

const tokenOf = async (surveyId: string) =>
  (await db.sql('select private.survey_token($1) as t', [surveyId])).rows[0].t as string;

/** The rating link as a customer's browser calls it: no sign-in. */
const rate = (number: number, token: string, rating?: string, comment?: string, slug = 'acme') =>
  db.anon().rpc('rate_ticket', {
    p_slug: slug,
    p_number: number,
    p_token: token,
    ...(rating ? { p_rating: rating } : {}),
    ...(comment !== undefined ? { p_comment: comment } : {}),
  });

describe('asking', () => {
  it('a solve asks the requester once, by an email with three one-click answers threaded with the request', async () => {
    const t = await solvedTicket('Asked once');
    const [survey] = await surveysOf(t.id);
    expect(survey).toMatchObject({ question: 'How did we do?', assignee_id: PEOPLE.acmeAgent.id, rating: null });
    const [summary] = await waitFor('the survey email', async () => {
      const found = (await messagesTo(db.stack.mailUrl, PEOPLE.acmeCustomer.email, { notifications: true })).filter(
        (m) => m.Subject === `How did we do? [#${t.number}]`,
      );
      return found.length ? found : null;
    });
    const mail = await (await fetch(`${db.stack.mailUrl}/api/v1/message/${summary.ID}`)).json();
    expect(mail.MessageID).toBe(`s.${survey.id}@${DOMAIN}`);
    const headers = await (await fetch(`${db.stack.mailUrl}/api/v1/message/${summary.ID}/headers`)).json();
    const first = (await db.sql('select id from messages where ticket_id = $1 order by created_at limit 1', [t.id]))
      .rows[0].id;
    expect(headers['In-Reply-To']).toEqual([`<m.${first}@${DOMAIN}>`]);
    const token = await tokenOf(survey.id);
    for (const rating of ['good', 'okay', 'bad'])
      expect(mail.Text).toContain(
        `http://localhost:3999/support/acme/requests/${t.number}/rating?t=${token}&rating=${rating}`,
      );
    expect(mail.HTML).toContain(`rating=bad`);
    // Solving is done; an unrelated change asks nothing more.
    await db.sql("update tickets set priority = 'high' where id = $1", [t.id]);
    expect(await surveysOf(t.id)).toHaveLength(1);
  });

  it('each solve asks once more; a reopened and solved request has two surveys', async () => {
    const t = await solvedTicket('Solved twice');
    await setStatus('acmeAgent', t.id, 'open');
    await setStatus('acmeAgent', t.id, 'solved');
    expect(await surveysOf(t.id)).toHaveLength(2);
  });

  it('asks nothing when the workspace turned it off, nor of a member who opened a ticket themselves', async () => {
    await saveSettings('acmeAdmin', ACME, false, 'How did we do?');
    const off = await solvedTicket('Survey off');
    expect(await surveysOf(off.id)).toEqual([]);
    await db.sql('delete from csat_settings');
    const own = await solvedTicket('An agent’s own', 'acmeAgent2');
    expect(await surveysOf(own.id)).toEqual([]);
  });

  it('asks the question the admins wrote', async () => {
    await saveSettings('acmeAdmin', ACME, true, 'Were we any help?');
    const t = await solvedTicket('Own question');
    expect((await surveysOf(t.id))[0].question).toBe('Were we any help?');
  });

  it('a merged ticket asks nothing more: its survey closes, its link says so, no survey email goes after', async () => {
    const t = await solvedTicket('Merged after solving');
    const kept = await openTicket(db, 'acmeCustomer', 'The one kept');
    const [survey] = await surveysOf(t.id);
    const token = await tokenOf(survey.id);
    /** What survey_wanted says of a ticket as it is now, for a signed-in caller (the API's role). */
    const wanted = async (ticketId: string) =>
      (
        await db.sql(
          `with caller as (select set_config('request.jwt.claims', '{"role":"authenticated"}', true))
           select private.survey_wanted(t) as wanted from caller, tickets t where t.id = $1`,
          [ticketId],
        )
      ).rows[0].wanted as boolean;
    expect(await wanted(t.id)).toBe(true);

    const merged = await (await db.as('acmeAgent')).rpc('merge_tickets', { p_ticket_id: t.id, p_into: kept.id });
    expect(merged.error).toBeNull();
    expect(await wanted(t.id)).toBe(false);
    expect((await rate(t.number, token, 'good')).error).toMatchObject({ code: 'P0001', message: 'survey_expired' });
    // notify asked again (a retry): nothing to send.
    const res = await fetch(`${db.stack.apiUrl}/functions/v1/notify`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${db.stack.serviceRoleKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'survey', survey_id: survey.id }),
    });
    expect(await res.json()).toMatchObject({ sent: [], skipped: 'closed' });
    expect(await surveysOf(t.id)).toEqual([expect.objectContaining({ rating: null })]);
    // The ticket it went into is asked about as any other when it is solved.
    expect(await wanted(kept.id)).toBe(true);
  });
});

describe('the token', () => {
  it('records a rating without signing in; the same answer again changes nothing; another answer replaces it', async () => {
    const t = await solvedTicket('Replay');
    const [survey] = await surveysOf(t.id);
    const token = await tokenOf(survey.id);
    const first = await rate(t.number, token, 'good');
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({
      number: t.number,
      subject: 'Replay',
      question: 'How did we do?',
      rating: 'good',
    });
    const [rated] = await surveysOf(t.id);
    // A link clicked twice (or fetched again) is one rating, at the first click's time.
    expect((await rate(t.number, token, 'good')).error).toBeNull();
    expect((await surveysOf(t.id))[0].rated_at).toEqual(rated.rated_at);
    expect((await rate(t.number, token, 'bad')).data).toMatchObject({ rating: 'bad' });
    expect((await surveysOf(t.id))[0].rating).toBe('bad');
    // Reading only (the page without an answer) changes nothing.
    expect((await rate(t.number, token)).data).toMatchObject({ rating: 'bad', comment: null });
  });

  it('takes a comment after a rating, clears it when empty, and refuses one before any rating', async () => {
    const t = await solvedTicket('Comment');
    const token = await tokenOf((await surveysOf(t.id))[0].id);
    const early = await rate(t.number, token, undefined, 'Slow');
    expect(early.error).toMatchObject({ code: 'P0001', message: 'bad_request' });
    expect((await rate(t.number, token, 'bad', '  Too slow.  ')).data).toMatchObject({
      rating: 'bad',
      comment: 'Too slow.',
    });
    expect((await rate(t.number, token, undefined, '')).data).toMatchObject({ rating: 'bad', comment: null });
  });

  it('refuses a forged token: a changed MAC, a made-up survey, anything not a token', async () => {
    const t = await solvedTicket('Forged');
    const survey = (await surveysOf(t.id))[0];
    const token = await tokenOf(survey.id);
    const flipped = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
    const madeUp = `${crypto.randomUUID().replace(/-/g, '')}.${token.split('.')[1]}`;
    for (const bad of [flipped, madeUp, 'nonsense', '', `${token}x`]) {
      const { error } = await rate(t.number, bad, 'bad');
      expect(error, bad).toMatchObject({ code: 'P0001', message: 'survey_invalid' });
    }
    expect((await surveysOf(t.id))[0].rating).toBeNull();
  });

  it('refuses a token on another ticket’s link, or another workspace’s', async () => {
    const a = await solvedTicket('Ticket A');
    const b = await solvedTicket('Ticket B');
    const tokenA = await tokenOf((await surveysOf(a.id))[0].id);
    expect((await rate(b.number, tokenA, 'bad')).error).toMatchObject({ message: 'survey_invalid' });
    expect((await rate(a.number, tokenA, 'bad', undefined, 'globex')).error).toMatchObject({
      message: 'survey_invalid',
    });
    expect((await surveysOf(a.id))[0].rating).toBeNull();
    expect((await surveysOf(b.id))[0].rating).toBeNull();
  });

  it('refuses any answer once the 7 days are over, and keeps the last one given', async () => {
    const t = await solvedTicket('Expired');
    const survey = (await surveysOf(t.id))[0];
    const token = await tokenOf(survey.id);
    await rate(t.number, token, 'okay');
    await db.sql("update csat_surveys set expires_at = now() - interval '1 minute' where id = $1", [survey.id]);
    for (const args of [['bad'], [undefined, 'Late'], []] as const) {
      const { error } = await rate(t.number, token, ...args);
      expect(error).toMatchObject({ code: 'P0001', message: 'survey_expired' });
    }
    expect((await surveysOf(t.id))[0]).toMatchObject({ rating: 'okay', comment: null });
  });
});

describe('who reads and writes what', () => {
  it('requesters read their own surveys only; agents read their workspace’s; others nothing; nobody writes one through the API', async () => {
    const t = await solvedTicket('RLS');
    const survey = (await surveysOf(t.id))[0];
    const seen = async (who: Person | 'anon') => {
      const c = who === 'anon' ? db.anon() : await db.as(who);
      const { data } = await c.from('csat_surveys').select('id').eq('id', survey.id);
      return (data ?? []).length;
    };
    expect(await seen('acmeCustomer')).toBe(1);
    expect(await seen('acmeAgent2')).toBe(1);
    expect(await seen('acmeAdmin')).toBe(1);
    expect(await seen('acmeCustomer2')).toBe(0);
    expect(await seen('globexAdmin')).toBe(0);
    expect(await seen('anon')).toBe(0);
    for (const who of ['acmeCustomer', 'acmeAdmin'] as const) {
      const c = await db.as(who);
      const up = await c.from('csat_surveys').update({ rating: 'good' }).eq('id', survey.id);
      expect(up.error?.code, who).toBe('42501');
      const add = await c
        .from('csat_surveys')
        .insert({ ticket_id: t.id, workspace_id: ACME, requester_id: PEOPLE.acmeCustomer.id, question: 'Forged?' });
      expect(add.error?.code, who).toBe('42501');
    }
    expect((await surveysOf(t.id))[0].rating).toBeNull();
  });

  it('gives a survey’s token to its requester (the portal’s buttons) and to nobody else', async () => {
    const t = await solvedTicket('Token owner');
    const survey = (await surveysOf(t.id))[0];
    const tokenFor = async (who: Person) =>
      (await (await db.as(who)).rpc('survey_token', { p_survey_id: survey.id })).data;
    expect(await tokenFor('acmeCustomer')).toBe(await tokenOf(survey.id));
    expect(await tokenFor('acmeCustomer2')).toBeNull();
    expect(await tokenFor('acmeAgent')).toBeNull();
    expect((await db.anon().rpc('survey_token', { p_survey_id: survey.id })).error?.code).toBe('42501');
  });

  it('admins turn the survey off and word the question; agents and customers can’t, directly or otherwise', async () => {
    for (const who of ['acmeAgent', 'acmeCustomer'] as const) {
      expect((await saveSettings(who, ACME, false, 'Q?')).error?.message, who).toBe('forbidden');
      const c = await db.as(who);
      expect((await c.from('csat_settings').insert({ workspace_id: ACME, enabled: false })).error?.code, who).toBe(
        '42501',
      );
    }
    expect((await saveSettings('acmeAdmin', GLOBEX, false, 'Q?')).error?.message).toBe('forbidden');
    expect((await saveSettings('acmeAdmin', ACME, true, 'Two\nlines')).error?.message).toBe('question_invalid');
    expect((await saveSettings('acmeAdmin', ACME, true, ' ')).error?.message).toBe('question_invalid');
    const admin = await db.as('acmeAdmin');
    expect((await admin.from('csat_settings').update({ enabled: false }).eq('workspace_id', ACME)).error?.code).toBe(
      '42501',
    );
    expect((await saveSettings('acmeAdmin', ACME, false, ' Good? ')).error).toBeNull();
    expect((await saveSettings('acmeAdmin', ACME, true, 'Better?')).error).toBeNull();
    const { rows } = await db.sql('select enabled, question, updated_by from csat_settings where workspace_id = $1', [
      ACME,
    ]);
    expect(rows).toEqual([{ enabled: true, question: 'Better?', updated_by: PEOPLE.acmeAdmin.id }]);
    // Members read it; customers don't.
    expect((await (await db.as('acmeAgent')).from('csat_settings').select('question')).data).toEqual([
      { question: 'Better?' },
    ]);
    expect((await (await db.as('acmeCustomer')).from('csat_settings').select('question')).data).toEqual([]);
  });
});

describe('the report', () => {
  it('counts answers per week and per agent with the comments, for admins only', async () => {
    await db.sql('delete from csat_surveys');
    const answers = [
      ['good', null],
      ['good', null],
      ['bad', 'Took a week.'],
      [null, null],
    ] as const;
    for (const [i, [rating, comment]] of answers.entries()) {
      const t = await solvedTicket(`Report ${i}`);
      if (rating) await rate(t.number, await tokenOf((await surveysOf(t.id))[0].id), rating, comment ?? undefined);
    }
    const admin = await db.as('acmeAdmin');
    const { data, error } = await admin.rpc('csat_report', { p_slug: 'acme', p_days: 7 });
    expect(error).toBeNull();
    // The Monday of this week in the workspace's time zone.
    const { rows } = await db.sql(
      "select date_trunc('week', now() at time zone w.time_zone)::date::text as week from workspaces w where w.id = $1",
      [ACME],
    );
    const week = rows[0].week;
    expect(data.weeks).toEqual([{ week, good: 2, okay: 0, bad: 1 }]);
    expect(data.agents).toEqual([
      { assignee_id: PEOPLE.acmeAgent.id, name: expect.any(String), good: 2, okay: 0, bad: 1 },
    ]);
    expect(data.comments).toEqual([
      expect.objectContaining({ subject: 'Report 2', rating: 'bad', comment: 'Took a week.' }),
    ]);
    const agent = await db.as('acmeAgent');
    expect((await agent.rpc('csat_report', { p_slug: 'acme', p_days: 7 })).error?.message).toBe('forbidden');
  });

  it('per agent: replies, solved, the medians, SLA met and CSAT, as plain SQL counts them; admins only', async () => {
    const t = await openTicket(db, 'acmeCustomer', 'Per agent');
    const agent = await db.as('acmeAgent');
    await agent.from('tickets').update({ assignee_id: PEOPLE.acmeAgent.id }).eq('id', t.id);
    const { error } = await agent.rpc('post_message', { p_ticket_id: t.id, p_body: 'On it.', p_new_status: 'solved' });
    expect(error).toBeNull();
    const admin = await db.as('acmeAdmin');
    const { data } = await admin.rpc('agent_report', { p_slug: 'acme', p_days: 7 });
    const members = (await db.sql('select user_id from memberships where workspace_id = $1', [ACME])).rows;
    expect(data.map((r: { user_id: string }) => r.user_id).sort()).toEqual(members.map((m) => m.user_id).sort());
    const row = data.find((r: { user_id: string }) => r.user_id === PEOPLE.acmeAgent.id);
    const { rows } = await db.sql(
      `select (select count(*)::int from messages where author_id = $1 and workspace_id = $2 and kind = 'reply'
                 and created_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - interval '6 days') as replies,
              (select count(*)::int from tickets where assignee_id = $1 and workspace_id = $2 and solved_at is not null
                 and solved_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - interval '6 days') as solved,
              (select count(*) filter (where rating = 'good')::int from csat_surveys where assignee_id = $1 and workspace_id = $2) as good,
              (select count(*) filter (where rating = 'bad')::int from csat_surveys where assignee_id = $1 and workspace_id = $2) as bad`,
      [PEOPLE.acmeAgent.id, ACME],
    );
    expect(row).toMatchObject({ ...rows[0], sla_met: 0, sla_total: 0 });
    expect(row.replies).toBeGreaterThan(0);
    expect(row.resolution_median_seconds).toEqual(expect.any(Number));
    expect(row.first_response_median_seconds).toEqual(expect.any(Number));
    expect((await agent.rpc('agent_report', { p_slug: 'acme', p_days: 7 })).error?.message).toBe('forbidden');
    expect((await admin.rpc('agent_report', { p_slug: 'acme', p_days: 400 })).error?.message).toBe('bad_request');
  });

  it('per tag: SLA targets met and answers on the tickets carrying the tag now; admins only', async () => {
    const tag = `csat-${Date.now()}`;
    const agent = await db.as('acmeAgent');
    const tagged = async (subject: string, rating: string, met: boolean) => {
      const t = await solvedTicket(subject);
      expect((await agent.rpc('add_ticket_tag', { p_ticket_id: t.id, p_name: tag })).error).toBeNull();
      await rate(t.number, await tokenOf((await surveysOf(t.id))[0].id), rating);
      // An outcome as the breach sweep or a first reply records it (90_promises.sql).
      await db.sql(
        `insert into sla_outcomes (ticket_id, workspace_id, target, started_at, due_at, met, priority, assignee_id)
         select id, workspace_id, 'first_response', created_at, created_at + interval '1 hour', $2, priority, assignee_id
           from tickets where id = $1`,
        [t.id, met],
      );
    };
    await tagged('Tagged, met, good', 'good', true);
    await tagged('Tagged, missed, bad', 'bad', false);
    // Untagged: counts for no tag.
    const plain = await solvedTicket('Not tagged');
    await rate(plain.number, await tokenOf((await surveysOf(plain.id))[0].id), 'bad');
    // A tag with nothing decided or answered is left out.
    const spare = await openTicket(db, 'acmeCustomer', 'Tagged, nothing yet');
    await agent.rpc('add_ticket_tag', { p_ticket_id: spare.id, p_name: `${tag}-spare` });

    const admin = await db.as('acmeAdmin');
    const { data, error } = await admin.rpc('tag_report', { p_slug: 'acme', p_days: 7 });
    expect(error).toBeNull();
    const mine = (data as { name: string }[]).filter((r) => r.name.startsWith(tag));
    expect(mine).toEqual([{ name: tag, colour: 'grey', sla_met: 1, sla_total: 2, good: 1, okay: 0, bad: 1 }]);
    expect((await agent.rpc('tag_report', { p_slug: 'acme', p_days: 7 })).error?.message).toBe('forbidden');
    expect((await admin.rpc('tag_report', { p_slug: 'globex', p_days: 7 })).error?.message).toBe('not_found');
  });
});
