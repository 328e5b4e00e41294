// npm run seed:bulk -- --workspace acme --tickets 100000 [--batch 50000] [--sessions 2] [--db-url URL | --dir <stack data dir>]
// Adds realistic volume for benchmarks: tickets spread over a year in every status, each with a
// customer message, most with an agent reply, some with notes. Set-based SQL in batches.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PROJECT_DIR, readStatus } from '@tend/supabase-local';

const { values } = parseArgs({
  options: {
    workspace: { type: 'string', default: 'acme' },
    tickets: { type: 'string', default: '100000' },
    // Tickets per statement (the tests use small batches to cover several).
    batch: { type: 'string', default: '50000' },
    // Database sessions loading batches at once (the machine's cores).
    sessions: { type: 'string', default: '2' },
    'db-url': { type: 'string' },
    dir: { type: 'string' },
  },
});
const total = Number(values.tickets);
const BATCH = Number(values.batch);
if (!Number.isInteger(total) || total < 1) throw new Error('--tickets must be a positive whole number');
if (!Number.isInteger(BATCH) || BATCH < 1) throw new Error('--batch must be a positive whole number');
const SESSIONS = Number(values.sessions);
if (!Number.isInteger(SESSIONS) || SESSIONS < 1) throw new Error('--sessions must be a positive whole number');

function dbUrl(): string {
  if (values['db-url']) return values['db-url'];
  // The stack `npm run stack -- start [--dir D]` runs (what `npm run stack -- status --json` reports).
  const dir = values.dir ? path.resolve(values.dir) : path.join(PROJECT_DIR, '.supabase-local');
  const status = readStatus(dir);
  if (!status)
    throw new Error(`No stack is running on ${dir}: start it with \`npm run stack -- start\` or pass --db-url.`);
  return status.dbUrl;
}

// Varied enough that search and its statistics behave like a real inbox's (many words, few in every ticket).
const CUSTOMER_TEXTS = [
  'Hello, I need help with my order. It has been a few days and nothing has changed. Could you check what is going on?',
  'I was charged twice for the same invoice this month. Please refund the duplicate payment to my card.',
  'The sign-in code never arrives in my inbox. I checked the spam folder too. My colleague gets hers fine.',
  'The parcel arrived but the ceramic bowl inside was cracked. I have photos of the packaging if you need them.',
  'Can I change the shipping address on an order that has not shipped yet? We moved offices last week.',
  'Our team plan renews tomorrow and we would like to downgrade to the basic tier before then.',
  'The export to CSV stops at ten thousand rows. Is there a limit, or is something broken on our account?',
  'Tracking has said "label created" for six days. Is the package actually on its way to Rotterdam?',
  'I would like to return the headphones; the left ear cup crackles at high volume.',
  'Please add our VAT number to the last three invoices; our accountant needs them for the quarterly filing.',
  'The mobile app crashes whenever I attach a photo from the gallery. I am on the latest version.',
  'Is the warranty still valid if the blender was bought from a reseller in Lisbon?',
  // One ticket in 10 007: the rare word for bench:inbox's search ("espresso", about 100 at 1 M).
  'The espresso machine keeps showing the descaling light after descaling. Serial number on the box.',
];
const AGENT_TEXTS = [
  'Thanks for reaching out! I have looked into this and we will sort it out today.',
  'Sorry about that. I have issued a refund for the duplicate charge; it shows on your statement within 5–10 business days.',
  'I have resent the code and whitelisted your domain on our side. Could you try once more and let me know?',
  'We are sending a replacement by express courier at no cost. No need to return the damaged one.',
  'Done: the address is updated and the warehouse has been told. You will get a new confirmation email.',
  'The carrier confirmed a delay at the depot. Your parcel should be delivered by Thursday.',
  'I have raised the export limit on your workspace. Please try the download again.',
];
const NOTE_TEXTS = [
  'Checked with the warehouse; tracking shows a delay.',
  'Customer has had three issues this month, worth a goodwill voucher.',
  'Escalated to billing, waiting on their reply.',
  'Known bug in 4.2, engineering has a fix in review.',
];

// The tickets' columns the load writes; the others are left null or to their defaults.
const TICKET_COLUMNS = [
  'workspace_id',
  'number',
  'requester_id',
  'subject',
  'status',
  'priority',
  'assignee_id',
  'created_at',
  'updated_at',
  'last_message_at',
  'first_response_at',
  'solved_at',
  'closed_at',
  'search',
];

/**
 * Whether no loaded ticket enters this partial index: its condition is null tests only, one of them
 * "X IS NOT NULL" for a column the load leaves null (pg_get_indexdef's wording).
 */
function noLoadedTicketEnters(def: string): boolean {
  const where = /^CREATE INDEX \w+ ON public\.tickets .* WHERE (.+)$/.exec(def)?.[1];
  if (!where) return false;
  const test = /\((\w+) IS (NOT )?NULL\)/g;
  const others = where.replace(test, '').replace(/AND|[()\s]/g, '');
  return others === '' && [...where.matchAll(test)].some(([, column, not]) => not && !TICKET_COLUMNS.includes(column!));
}

/** CPU seconds (user + system) a local Postgres backend has used, from /proc; undefined if it can't be read. */
function backendCpu(pid: number): number | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // USER_HZ
  } catch {
    return undefined;
  }
}

// The reports' rollups of the loaded tickets ($1's numbers $2 to $3), as 60_reports.sql's roll_up_report adds a
// statement's new tickets (the load's are never in Spam or Trash), once for the whole load: batch by batch, every
// batch upserted again most of the year's ~35 000 slots, the second session's batch end queued behind the first's
// (the customers' rows, upserted first, held until its commit), and each duration's bucket (a numeric ln) was
// computed per ticket, where the load's durations take two values: here they are counted by day and length first.
const LOADED = 'select * from public.tickets where workspace_id = $1::uuid and number between $2::int and $3::int';
const ROLLUPS = [
  `insert into private.report_slots as s (workspace_id, slot, created, solved)
   select $1::uuid, d.slot, sum(d.created), sum(d.solved)
     from (select private.report_slot(t.created_at) as slot, 1 as created, 0 as solved from (${LOADED}) t
           union all
           select private.report_slot(t.solved_at), 0, 1 from (${LOADED}) t where t.solved_at is not null) d
    group by d.slot order by d.slot
   on conflict (workspace_id, slot) do update set created = s.created + excluded.created, solved = s.solved + excluded.solved`,
  `insert into private.report_durations as r (workspace_id, kind, span, day, bucket, tickets, seconds)
   select $1::uuid, d.kind, p.span, p.day, private.report_bucket(d.seconds), sum(d.n), sum(d.n * d.seconds)
     from (select x.kind, (x.at at time zone w.time_zone)::date as day, x.seconds, count(*) as n
             from (select 'first_response' as kind, t.first_response_at as at, private.report_seconds(t.created_at, t.first_response_at) as seconds
                     from (${LOADED}) t where t.first_response_at is not null
                   union all
                   select 'resolution', t.solved_at, private.report_seconds(t.created_at, t.solved_at)
                     from (${LOADED}) t where t.solved_at is not null) x
             join public.workspaces w on w.id = $1
            group by 1, 2, 3) d
     cross join lateral private.report_spans(d.day) p
    group by 2, 3, 4, 5 order by 2, 3, 4, 5
   on conflict (workspace_id, kind, span, day, bucket) do update set tickets = r.tickets + excluded.tickets, seconds = r.seconds + excluded.seconds`,
];

/**
 * Runs the jobs in order on the sessions, each session taking the next as it finishes one. After a failure
 * no job starts, the ones running finish, and the first error is thrown.
 */
async function onSessions<T>(sessions: pg.Client[], jobs: T[], run: (c: pg.Client, job: T) => Promise<unknown>) {
  let next = 0;
  let failed = false;
  const results = await Promise.allSettled(
    sessions.map(async (c) => {
      while (!failed && next < jobs.length) {
        try {
          await run(c, jobs[next++]!);
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    }),
  );
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
}

async function main() {
  const url = dbUrl();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const ws = (await client.query('select id from public.workspaces where slug = $1', [values.workspace])).rows[0];
  if (!ws) throw new Error(`No workspace with slug "${values.workspace}".`);
  const people = (await client.query(`select user_id, role from public.memberships where workspace_id = $1`, [ws.id]))
    .rows;
  const agents = people.map((p) => p.user_id);
  // Requesters: the workspace's existing customers plus 200 generated ones.
  await client.query(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, confirmation_token, recovery_token, email_change_token_new,
       email_change, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, email_confirmed_at)
     select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated',
            'bulk' || g || '.' || $1 || '@example.test', '', '', '', '', '', '{"provider":"email","providers":["email"]}',
            jsonb_build_object('display_name', 'Bulk Customer ' || g), now(), now(), now()
     from generate_series(1, 200) g
     on conflict do nothing`,
    [values.workspace],
  );
  const requesters = (
    await client.query(`select id from auth.users where email like 'bulk%.' || $1 || '@example.test'`, [
      values.workspace,
    ])
  ).rows.map((r) => r.id);
  const sessions = [client];
  for (let i = 1; i < SESSIONS; i++) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    sessions.push(c);
  }
  const backends: number[] = [];
  for (const s of sessions) {
    backends.push((await s.query('select pg_backend_pid() as pid')).rows[0].pid as number);
    await s.query(`set work_mem = '256MB'`);
    await s.query(`set maintenance_work_mem = '512MB'`);
  }
  /** CPU seconds the seeding sessions' backends have used, summed. */
  const sessionsCpu = () => {
    const each = backends.map(backendCpu);
    return each.every((x) => x !== undefined) ? each.reduce((a, b) => a! + b!, 0) : undefined;
  };
  const cpu0 = sessionsCpu();
  const t0 = performance.now();
  // Set-based. What the per-row machinery would do is done per statement instead:
  //  - triggers that derive or check a row (number, assignee membership, timestamps, search vector,
  //    history, message bookkeeping) are switched off and their result computed here, exactly (the
  //    search vector is the subject's, weight A, then each public reply's in order, as tickets_search
  //    and messages_bookkeeping build it); triggers that do nothing for a direct database session
  //    (messages_status, messages_notify, and the notifications': tickets_notify_assignee,
  //    messages_notify_members, messages_mention, which return at once without a role: queued per row
  //    they still cost a call each, 3.3 million at 1 M) are off too, and so are the promises' (messages_sla:
  //    bulk tickets carry no SLA due time, supabase/schemas/90_promises.sql), and the rules' (tickets_rules, which
  //    also assigns a new ticket automatically: bulk tickets are not; supabase/schemas/95_rules.sql); the
  //    statement-level tallies and customers' counts stay on, the words in use and the reports' rollups are
  //    added by the load itself (docs/decisions/107-seed-words-rollups-keys.md);
  //  - foreign keys are dropped and added back at the end, which checks every row in one join per key
  //    instead of one look-up per row (two thirds of the time at 1 M); so are primary keys and unique
  //    constraints, built again by sorting.
  // The rows go in on --sessions sessions at once (one session's load is one core's work), each batch a
  // transaction of its own, so the switches above are committed first, and put back at the end whatever
  // happens in between (docs/decisions/079-seed-in-parallel.md). Meanwhile every session sees the tables
  // without them: seed:bulk is for a stack of its own (benchmarks, a developer's volume), not one that serves people.
  const TRIGGERS = [
    'public.tickets:tickets_number',
    'public.tickets:tickets_assignee',
    'public.tickets:tickets_transition',
    'public.tickets:tickets_search',
    'public.tickets:tickets_history',
    'public.messages:messages_workspace',
    'public.messages:messages_bookkeeping',
    'public.messages:messages_status',
    'public.messages:messages_notify',
    'public.tickets:tickets_notify_assignee',
    'public.messages:messages_notify_members',
    'public.messages:messages_mention',
    'public.messages:messages_sla',
    // Rules (95_rules.sql): a direct session runs none, and bulk tickets are watched by no waiting rule.
    'public.tickets:tickets_rules',
    'public.tickets:tickets_rule_waits',
    'public.messages:messages_rules',
    // Spam and Trash (54_spam_trash_split.sql) and the after-hours acknowledgement (93_after_hours.sql):
    // for a direct session each returns at once, after a call per row (the messages' one reads its
    // ticket first, 2.3 million times at 1 M).
    'public.tickets:tickets_spam_sender',
    'public.messages:messages_set_aside',
    'public.tickets:tickets_acknowledge_after_hours',
    // The words in use (50_inbox.sql's private.search_words), statement-level: each batch's vectors unnested
    // and its notes parsed again cost ~17 s of CPU at 1 M; the load adds its words from its own texts instead.
    'public.tickets:tickets_search_words_insert',
    'public.messages:messages_search_words',
    // The reports' rollups (60_reports.sql), statement-level: added once at the end instead (ROLLUPS).
    'public.tickets:tickets_report_insert',
  ];
  // What stays on: the statement-level triggers that keep counts (50_inbox.sql's tallies, 58_customers.sql's
  // customers) see each batch once. Any other trigger that fires on an insert
  // is one this script doesn't know: it stops, rather than pay a call per row unseen (that is how the seed
  // once went from 110 s to 195 s at 1 M) or skip what the trigger does.
  const unknown = (
    await client.query(
      `select x.name from (
         select 'public.' || c.relname || ':' || t.tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
          where c.oid in ('public.tickets'::regclass, 'public.messages'::regclass, 'public.ticket_events'::regclass)
            and not t.tgisinternal and t.tgenabled <> 'D'
            and t.tgtype & 1 <> 0 and t.tgtype & 4 <> 0) x -- per row (constraint triggers too), on INSERT
        where x.name <> all ($1::text[])
        order by 1`,
      [TRIGGERS],
    )
  ).rows.map((r) => r.name as string);
  if (unknown.length)
    throw new Error(
      `seed:bulk doesn't know these insert triggers: ${unknown.join(', ')}. Add each to TRIGGERS in scripts/seed-bulk.ts, with what it does computed by the load.`,
    );
  const toggle = async (on: boolean) => {
    for (const [table, trigger] of TRIGGERS.map((t) => t.split(':')))
      await client.query(`alter table ${table} ${on ? 'enable' : 'disable'} trigger ${trigger}`);
  };
  // Step 1, one transaction: keys and indexes off, triggers off, realtime's publications left, numbers reserved.
  await client.query('begin');
  const keys = (
    await client.query(
      `select conrelid::regclass::text as tbl, conname, pg_get_constraintdef(oid) as def from pg_constraint
        where contype = 'f' and (conrelid in ('public.tickets'::regclass, 'public.messages'::regclass, 'public.ticket_events'::regclass)
                                 or confrelid in ('public.tickets'::regclass, 'public.messages'::regclass, 'public.ticket_events'::regclass))
        order by conrelid::regclass::text, conname`,
    )
  ).rows as { tbl: string; conname: string; def: string }[];
  for (const k of keys) await client.query(`alter table ${k.tbl} drop constraint ${k.conname}`);
  // Primary keys and unique constraints too (other tables' keys to them are off above): their indexes are built
  // again at the end by sorting and become the constraints again. Above all the random uuids of tickets and
  // messages, each insert of which lands on another page of an index that outgrows the cache.
  const uniques = (
    await client.query(
      `select conrelid::regclass::text as tbl, conname as name, pg_get_constraintdef(oid) as constraint,
              pg_get_indexdef(conindid) as def from pg_constraint
        where contype in ('p', 'u') and conrelid in ('public.tickets'::regclass, 'public.messages'::regclass, 'public.ticket_events'::regclass)
        order by 1, 2`,
    )
  ).rows as { tbl: string; name: string; constraint: string; def: string }[];
  for (const u of uniques) await client.query(`alter table ${u.tbl} drop constraint ${u.name}`);
  // Indexes that back no constraint are built again at the end, by sorting (a GIN index in
  // particular is many times cheaper to build than to update row by row) — except a partial index no
  // loaded ticket enters (Spam, Trash, merged, snoozed): it stays, as building it again would read the
  // whole table for nothing.
  const indexes = (
    await client.query(
      `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def from pg_index i
        where i.indrelid in ('public.tickets'::regclass, 'public.messages'::regclass, 'public.ticket_events'::regclass)
          and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
        order by 1`,
    )
  ).rows.filter((i) => !noLoadedTicketEnters(i.def)) as { name: string; def: string }[];
  for (const i of indexes) await client.query(`drop index ${i.name}`);
  await toggle(false);
  // Realtime's publications (70_realtime.sql) leave the load out: no browser wants a million inserts as
  // live news, and the stack would decode every one of them after the commit, while the benchmarks run.
  // Only plain entries (no row filter or column list), added back as they were before the commit.
  const published = (
    await client.query(
      `select p.pubname, c.relname from pg_publication_rel r join pg_publication p on p.oid = r.prpubid
         join pg_class c on c.oid = r.prrelid
        where r.prrelid in ('public.tickets'::regclass, 'public.messages'::regclass, 'public.ticket_events'::regclass)
          and r.prqual is null and r.prattrs is null
        order by 1, 2`,
    )
  ).rows as { pubname: string; relname: string }[];
  for (const p of published) await client.query(`alter publication "${p.pubname}" drop table public.${p.relname}`);
  // Reserve a block of numbers on the counter row, as create_ticket would one by one.
  const first = (
    await client.query(
      'update public.workspaces set ticket_seq = ticket_seq + $2 where id = $1 returning ticket_seq - $2 + 1 as first',
      [ws.id, total],
    )
  ).rows[0].first as number;
  await client.query('commit');
  // Step 2: the rows, in batches of about --batch tickets (a multiple of the sessions in number, so each
  // has as many), each session taking the next batch as it finishes one. The statement-level triggers'
  // upserts queue two batches' ends one behind the other (their rows are taken in key order, so they
  // never deadlock), while the rest of each batch runs beside the other's.
  const count = Math.ceil(Math.ceil(total / BATCH) / SESSIONS) * SESSIONS;
  const size = Math.ceil(total / count);
  const batches: { done: number; n: number }[] = [];
  for (let done = 0; done < total; done += size) batches.push({ done, n: Math.min(size, total - done) });
  let added = 0;
  let loaded = t0;
  let cpuLoaded: number | undefined;
  let indexed = t0;
  let cpuIndexed: number | undefined;
  const built: { name: string; s: number }[] = [];
  try {
    await onSessions(sessions, batches, async (c, { done, n }) => {
      await c.query('begin');
      try {
        await c.query(
          `with customer (i, body, vec) as (
             select row_number() over () - 1, b, to_tsvector('english', b) from unnest($6::text[]) b
           ), agent (i, body, vec) as (
             select row_number() over () - 1, b, to_tsvector('english', b) from unnest($7::text[]) b
           ), note (i, body) as (
             select row_number() over () - 1, b from unnest($8::text[]) b
           ), plan as (
             select g, opened, priority, topic, topic || ' #' || ($2 + g) as subject, with_note,
                    -- Timestamps follow the status (solved 2 days after opening, closed 7 days after solving) and
                    -- never lie in the future; solved more than 7 days ago would have been closed by the job by now.
                    case when status in ('solved', 'closed') and opened > now() - interval '2 days' then 'open'
                         when status = 'closed' and opened > now() - interval '9 days' then 'solved'
                         when status = 'solved' and opened <= now() - interval '9 days' then 'closed'
                         else status end as status,
                    case when status = 'new' or g % 4 = 0 then null else ($5::uuid[])[1 + (g % array_length($5::uuid[], 1))] end as assignee,
                    case when g % 10007 = 10006 then array_length($6::text[], 1) - 1 else g % (array_length($6::text[], 1) - 1) end as ci, (g / 7) % array_length($7::text[], 1) as ai, (g / 3) % array_length($8::text[], 1) as ni
             from (
               select g, date_trunc('second', now() - (random() * interval '365 days')) as opened, random() < 0.3 as with_note,
                      (array['new','open','open','open','pending','pending','solved','solved','solved','closed']::public.ticket_status[])[1 + floor(random() * 10)::int] as status,
                      (array['low','normal','normal','normal','high','urgent']::public.ticket_priority[])[1 + floor(random() * 6)::int] as priority,
                      (array['Order','Invoice','Login','Refund','Shipping','Password','Account','Subscription','Delivery','Warranty'])[1 + g % 10]
                        || ' issue: ' || (array['damaged item','wrong amount','cannot sign in','duplicate charge','late parcel','reset link','name change','cancel plan','missing item','broken part'])[1 + (g / 10) % 10]
                        as topic
               from generate_series($9::int, $9::int + $3 - 1) g
             ) p
           ), t as (
             insert into public.tickets (${TICKET_COLUMNS.join(', ')})
             select $1, $2 + g, ($4::uuid[])[1 + (g % array_length($4::uuid[], 1))], subject, status, priority, assignee,
                    opened,
                    opened + case status when 'new' then interval '0' when 'solved' then interval '2 days' when 'closed' then interval '9 days' else interval '2 hours' end,
                    opened + case when status = 'new' then interval '0' else interval '2 hours' end,
                    case when status <> 'new' then opened + interval '2 hours' end,
                    case when status in ('solved', 'closed') then opened + interval '2 days' end,
                    case when status = 'closed' then opened + interval '9 days' end,
                    -- Subject and public replies, never notes; each reply's vector appended as it lands.
                    setweight(to_tsvector('english', subject), 'A') || c.vec || case when status = 'new' then ''::tsvector else a.vec end
             from plan join customer c on c.i = plan.ci join agent a on a.i = plan.ai
             returning id, workspace_id, requester_id, assignee_id, status, created_at, number
           ), history as (
             -- The moves docs/product.md §4 allows, in order: opened by the first reply, then pending or solved,
             -- and closed by the scheduled job (no actor) 7 days after solving.
             insert into public.ticket_events (ticket_id, workspace_id, actor_id, type, "from", "to", created_at)
             select id, workspace_id, requester_id, 'created', null, 'new', created_at from t
             union all
             select id, workspace_id, assignee_id, 'assignee', null, assignee_id::text, created_at + interval '1 hour' from t where assignee_id is not null
             union all
             select t.id, t.workspace_id, case when m.after < interval '9 days' then coalesce(t.assignee_id, ($5::uuid[])[1]) end, 'status', m.f, m.to, t.created_at + m.after
             from t join (values
               ('open', 'new', 'open', interval '2 hours'),
               ('pending', 'new', 'pending', interval '2 hours'),
               ('solved', 'new', 'open', interval '2 hours'), ('solved', 'open', 'solved', interval '2 days'),
               ('closed', 'new', 'open', interval '2 hours'), ('closed', 'open', 'solved', interval '2 days'), ('closed', 'solved', 'closed', interval '9 days')
             ) m (status, f, "to", after) on m.status = t.status::text
           ), words as (
             -- What the words triggers (private.add_search_words) would add for this batch, from the texts it drew
             -- rather than from a million vectors: the words of each subject's topic, customer text, reply (on a
             -- ticket past new) and note, once each, and the subjects' ticket numbers (a subject's last word).
             insert into private.search_words (word)
             select x.w from (
               select unnest(tsvector_to_array(to_tsvector('english', s.topic))) from (select distinct topic from plan) s
               union select unnest(tsvector_to_array(c.vec)) from customer c where c.i in (select ci from plan)
               union select unnest(tsvector_to_array(a.vec)) from agent a where a.i in (select ai from plan where status <> 'new')
               union select unnest(tsvector_to_array(to_tsvector('english', nt.body))) from note nt
                      where nt.i in (select ni from plan where status <> 'new' and with_note)
               union select ($2 + g)::text from plan
             ) x (w)
             where not exists (select from private.search_words s where s.word collate "C" = x.w)
           )
           insert into public.messages (ticket_id, workspace_id, author_id, kind, body, created_at)
           select t.id, t.workspace_id, t.requester_id, 'reply', c.body, t.created_at
             from t join plan p on p.g = t.number - $2 join customer c on c.i = p.ci
           union all
           select t.id, t.workspace_id, coalesce(t.assignee_id, ($5::uuid[])[1]), 'reply', a.body, t.created_at + interval '2 hours'
             from t join plan p on p.g = t.number - $2 join agent a on a.i = p.ai where t.status <> 'new'
           union all
           select t.id, t.workspace_id, coalesce(t.assignee_id, ($5::uuid[])[1]), 'note', nt.body, t.created_at + interval '1 hour'
             from t join plan p on p.g = t.number - $2 join note nt on nt.i = p.ni where t.status <> 'new' and p.with_note`,
          [ws.id, first, n, requesters, agents, CUSTOMER_TEXTS, AGENT_TEXTS, NOTE_TEXTS, done],
        );
        await c.query('commit');
      } catch (err) {
        await c.query('rollback').catch(() => undefined);
        throw err;
      }
      added += n;
      process.stdout.write(`\r${added} / ${total} tickets`);
    });
  } finally {
    // Step 3, whether or not every batch went in: everything back as it was. Indexes first (each one on
    // whichever session is free, the GIN ones first as they take longest), then the keys: added unchecked,
    // then checked one per session at a time (a check locks its own table only against writes, so checks of
    // different tables run side by side).
    loaded = performance.now();
    cpuLoaded = sessionsCpu();
    // The rollups beside them (on whichever session is free after the GIN builds): they read the tickets only.
    const builds = [...indexes, ...uniques].map((i) => ({ name: i.name, sql: i.def, params: [] as unknown[] }));
    const gin = (b: { sql: string }) => / USING gin /.test(b.sql);
    const rollups = ROLLUPS.map((sql, i) => ({
      name: `rollup ${i + 1}`,
      sql,
      params: [ws.id, first, first + total - 1],
    }));
    await onSessions(
      sessions,
      [...builds.filter(gin), ...rollups, ...builds.filter((b) => !gin(b))],
      async (c, job) => {
        const start = performance.now();
        await c.query(job.sql, job.params);
        built.push({ name: job.name, s: (performance.now() - start) / 1000 });
      },
    );
    indexed = performance.now();
    cpuIndexed = sessionsCpu();
    await client.query('begin');
    // "PRIMARY KEY (id)" → "PRIMARY KEY USING INDEX tickets_pkey" (the index built above, under the constraint's name).
    for (const u of uniques)
      await client.query(
        `alter table ${u.tbl} add constraint ${u.name} ${u.constraint.replace(/^(PRIMARY KEY|UNIQUE)( NULLS NOT DISTINCT)? \([^)]*\)/, `$1 USING INDEX ${u.name}`)}`,
      );
    for (const k of keys)
      await client.query(
        `alter table ${k.tbl} add constraint ${k.conname} ${k.def}${k.def.endsWith(' NOT VALID') ? '' : ' not valid'}`,
      );
    await toggle(true);
    for (const p of published) await client.query(`alter publication "${p.pubname}" add table public.${p.relname}`);
    await client.query('commit');
    // Checks in turns of a table each, so the sessions' next checks are of different tables.
    const turn = new Map<string, number>();
    const checks = keys
      .filter((k) => !k.def.endsWith(' NOT VALID'))
      .map((k) => {
        turn.set(k.tbl, (turn.get(k.tbl) ?? -1) + 1);
        return { ...k, turn: turn.get(k.tbl)! };
      })
      .sort((a, b) => a.turn - b.turn);
    await onSessions(sessions, checks, (c, k) => c.query(`alter table ${k.tbl} validate constraint ${k.conname}`));
  }
  // Each phase's wall time and, beside it, the seeding sessions' CPU (what the machine's load moves least).
  const phase = (from: number, to: number, cpuFrom?: number, cpuTo = sessionsCpu()) =>
    `${((to - from) / 1000).toFixed(1)} s` +
    (cpuFrom !== undefined && cpuTo !== undefined ? ` (CPU ${(cpuTo - cpuFrom).toFixed(1)} s)` : '');
  console.log(
    `\nRows ${phase(t0, loaded, cpu0, cpuLoaded)}, indexes built ${phase(loaded, indexed, cpuLoaded, cpuIndexed)}, ` +
      `foreign keys checked ${phase(indexed, performance.now(), cpuIndexed)}; ${SESSIONS} sessions.`,
  );
  console.log(
    `Slowest index builds: ${built
      .sort((a, b) => b.s - a.s)
      .slice(0, 6)
      .map((b) => `${b.name} ${b.s.toFixed(1)} s`)
      .join(', ')}.`,
  );
  // Fresh statistics for the planner, and a visibility map so index-only scans work straight away.
  await onSessions(sessions, ['public.messages', 'public.ticket_events', 'public.tickets'], (c, t) =>
    c.query(`vacuum (analyze) ${t}`),
  );
  const cpu = sessionsCpu();
  console.log(
    `\nAdded ${total} tickets to ${values.workspace} in ${((performance.now() - t0) / 1000).toFixed(1)} s` +
      (cpu0 !== undefined && cpu !== undefined ? ` (Postgres CPU ${(cpu - cpu0).toFixed(1)} s in its sessions).` : '.'),
  );
  for (const s of sessions) await s.end();
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
