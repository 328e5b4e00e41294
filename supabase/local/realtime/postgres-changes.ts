// postgres_changes (docs/reference/realtime.md §3): channels' subscriptions, and each change from the
// replication stream decided by Postgres (_realtime.apply_change): filters, RLS as each subscriber's
// role and claims (one check per distinct claims), and the columns they may read.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Member } from './broadcast.ts';
import type { ProjectLimits } from './limits.ts';
import type { Row, RowChange } from './pgoutput.ts';

export type Filter = [column: string, op: string, value: string, negate: boolean];

export interface SubscriptionParams {
  action: '*' | 'INSERT' | 'UPDATE' | 'DELETE';
  schema: string;
  table: string;
  filters: Filter[];
  select: string[] | null;
}

const OPERATORS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'like', 'ilike', 'is', 'match', 'imatch', 'isdistinct'];

/** The id the join reply gives each requested entry: a stable non-negative hash of it (upstream: phash2). */
export function subscriptionId(params: unknown): number {
  const canonical = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : Array.isArray(v)
        ? v.map(canonical)
        : v;
  return (
    createHash('sha1')
      .update(JSON.stringify(canonical(params)))
      .digest()
      .readUInt32BE(0) & 0x7ffffff
  );
}

/** Splits on commas outside parentheses and double quotes (several conditions are ANDed). */
function splitTopLevel(filter: string): string[] {
  const parts: string[] = [];
  let current = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < filter.length; i++) {
    const ch = filter[i]!;
    if (quoted) {
      current += ch;
      if (ch === '\\' && i + 1 < filter.length) current += filter[++i];
      else if (ch === '"') quoted = false;
    } else if (ch === '"' && /[.(,]/.test(current.at(-1) ?? '')) {
      quoted = true;
      current += ch;
    } else if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      if (ch === '(') depth++;
      if (ch === ')') depth = Math.max(0, depth - 1);
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

const inspect = (parts: string[]) => `[${parts.map((p) => JSON.stringify(p)).join(', ')}]`;

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  let out = '';
  for (let i = 1; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '\\' && i + 1 < value.length) out += value[++i];
    else if (ch === '"') return i === value.length - 1 ? out : value;
    else out += ch;
  }
  return value;
}

function parseFilters(filter: string): { ok: true; filters: Filter[] } | { ok: false; error: string } {
  if (!filter.trim()) return { ok: true, filters: [] };
  const filters: Filter[] = [];
  for (const segment of splitTopLevel(filter.trim())) {
    const s = segment.trim();
    if (!s) return { ok: false, error: 'filter must not contain empty segments (check for extra commas)' };
    const eq = s.indexOf('=');
    if (eq < 0) return { ok: false, error: inspect([s]) };
    const column = s.slice(0, eq);
    let rest = s.slice(eq + 1);
    const negate = rest.startsWith('not.');
    if (negate) rest = rest.slice(4);
    const dot = rest.indexOf('.');
    if (dot < 0) return { ok: false, error: inspect([rest]) };
    const op = rest.slice(0, dot);
    const value = rest.slice(dot + 1);
    if (!OPERATORS.includes(op)) return { ok: false, error: inspect([op, value]) };
    if (op === 'in') {
      if (!(value.length >= 2 && value.startsWith('(') && value.endsWith(')')))
        return { ok: false, error: '`in` filter value must be wrapped by parentheses' };
      filters.push([column, op, `{${value.slice(1, -1)}}`, negate]);
    } else filters.push([column, op, unquote(value), negate]);
  }
  return { ok: true, filters };
}

/** A postgres_changes entry of the join payload, checked as upstream's parse_subscription_params. */
export function parseSubscription(
  params: Record<string, unknown>,
): { ok: true; params: SubscriptionParams } | { ok: false; error: string } {
  const event = typeof params.event === 'string' ? params.event.toUpperCase() : '*';
  const action = (['INSERT', 'UPDATE', 'DELETE'].includes(event) ? event : '*') as SubscriptionParams['action'];
  let select: string[] | null = null;
  if (typeof params.select === 'string')
    return {
      ok: false,
      error: 'Error parsing `select` params: expected a list of column name strings, e.g. select: ["col1", "col2"]',
    };
  if (Array.isArray(params.select)) {
    const cols = params.select.filter((c): c is string => typeof c === 'string');
    select = cols.length ? cols : null;
  }
  const { schema, table, filter } = params;
  const has = (k: string) => k in params;
  let parsed: SubscriptionParams;
  if (typeof schema === 'string' && typeof table === 'string' && typeof filter === 'string') {
    const f = parseFilters(filter);
    if (!f.ok) return { ok: false, error: `Error parsing \`filter\` params: ${f.error}` };
    parsed = { action, schema, table, filters: f.filters, select };
  } else if (typeof schema === 'string' && typeof table === 'string' && !has('filter')) {
    parsed = { action, schema, table, filters: [], select };
  } else if (typeof schema === 'string' && !has('table') && !has('filter')) {
    parsed = { action, schema, table: '*', filters: [], select };
  } else if (typeof table === 'string' && !has('schema') && !has('filter')) {
    parsed = { action, schema: 'public', table, filters: [], select };
  } else {
    const shown = Object.entries(params)
      .map(([k, v]) => `${JSON.stringify(k)} => ${JSON.stringify(v)}`)
      .join(', ');
    return {
      ok: false,
      error: `No subscription params provided. Please provide at least a \`schema\` or \`table\` to subscribe to: %{${shown}}`,
    };
  }
  if (select && (parsed.schema === '*' || parsed.table === '*'))
    return {
      ok: false,
      error: 'Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name.',
    };
  return { ok: true, params: parsed };
}

/** The parameters as upstream's error messages show them (Elixir's inspect). */
export function paramsToLog(p: SubscriptionParams): string {
  const filters = `[${p.filters.map(([c, o, v, n]) => `{${JSON.stringify(c)}, ${JSON.stringify(o)}, ${JSON.stringify(v)}, ${n}}`).join(', ')}]`;
  const select = p.select ? `[${p.select.map((s) => JSON.stringify(s)).join(', ')}]` : 'nil';
  return `event: ${p.action}, schema: ${p.schema}, table: ${p.table}, filters: ${filters}, select: ${select}`;
}

interface Subscription {
  channel: Member;
  id: number;
  params: SubscriptionParams;
}

export interface ChangeResult {
  rls: boolean;
  columns: { name: string; type: string; typname: string }[];
  pk: string[];
  record: Record<string, unknown> | null;
  old_record: Record<string, unknown> | null;
  /** Per group: whether it sees the row, and which of its subscriptions pass their filters. */
  visible: boolean[];
  subs: boolean[][];
  /** Per role: the columns it may read. */
  readable: Record<string, string[]>;
}

const MAX_RECORD_BYTES = 1024 * 1024; // realtime db_settings.ex poll_max_record_bytes
const GROUPS_PER_CALL = 100;

const pick = (row: Record<string, unknown> | null, keep: (name: string) => boolean) =>
  Object.fromEntries(Object.entries(row ?? {}).filter(([k]) => keep(k)));

/** Postgrex's text for a Postgres error, as upstream's subscription errors quote it. */
function postgrexMessage(e: unknown): string {
  const err = e as { code?: string; message?: string };
  const names: Record<string, string> = {
    P0001: 'raise_exception',
    '42704': 'undefined_object',
    '22P02': 'invalid_text_representation',
    '22007': 'invalid_datetime_format',
    '2201B': 'invalid_regular_expression',
    '42883': 'undefined_function',
  };
  return err.code ? `ERROR ${err.code} (${names[err.code] ?? 'error'}) ${err.message}` : String(err.message ?? e);
}

export class PostgresChanges {
  private byRelation = new Map<number, Set<Subscription>>();
  private byChannel = new Map<Member, Subscription[]>();

  constructor(
    private pool: pg.Pool,
    private limits: ProjectLimits,
  ) {}

  /**
   * Registers the channel's entries (replacing earlier ones, e.g. after a token refresh). Resolves to
   * the message of the `system` reply: ok, or why not, and whether trying again may help.
   */
  async subscribe(channel: Member, entries: { id: number; params: SubscriptionParams }[]) {
    const subs: { sub: Subscription; relations: number[] }[] = [];
    for (const { id, params } of entries) {
      try {
        const { rows } = await this.pool.query('select _realtime.subscription_tables($1, $2, $3, $4, $5) as oids', [
          params.schema,
          params.table,
          String(channel.claims.role),
          JSON.stringify(params.filters),
          params.select,
        ]);
        const relations: number[] = rows[0].oids.map(Number);
        if (!relations.length)
          return {
            ok: false as const,
            retry: false,
            message: `Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [${paramsToLog(params)}]`,
          };
        subs.push({ sub: { channel, id, params }, relations });
      } catch (e) {
        if (typeof (e as { code?: unknown }).code !== 'string')
          return { ok: false as const, retry: true, message: 'Too many database timeouts' };
        return {
          ok: false as const,
          retry: false,
          message: `Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: [${paramsToLog(params)}]. Exception: ${postgrexMessage(e)}`,
        };
      }
    }
    if (channel.closed) return { ok: false as const, retry: false, message: '' };
    this.unsubscribe(channel);
    this.byChannel.set(
      channel,
      subs.map((s) => s.sub),
    );
    for (const { sub, relations } of subs)
      for (const rel of relations) {
        let set = this.byRelation.get(rel);
        if (!set) this.byRelation.set(rel, (set = new Set()));
        set.add(sub);
      }
    return { ok: true as const, retry: false, message: 'Subscribed to PostgreSQL' };
  }

  unsubscribe(channel: Member) {
    for (const sub of this.byChannel.get(channel) ?? [])
      for (const [rel, set] of this.byRelation) {
        set.delete(sub);
        if (!set.size) this.byRelation.delete(rel);
      }
    this.byChannel.delete(channel);
  }

  /**
   * Postgres's decision for the groups: one call for up to GROUPS_PER_CALL of them, calls in
   * parallel beyond (one check per group, so many distinct users take several connections' time).
   * A call that fails (a policy raising) is made again checking each group on its own.
   */
  private async decide(
    relid: number,
    action: string,
    newRow: Row | undefined,
    oldRow: Row | undefined,
    filters: Filter[],
    groups: { claims: Member['claims']; filterLists: number[][] }[],
    xid: number,
  ): Promise<ChangeResult> {
    const call = (chunk: typeof groups, isolate: boolean) =>
      this.pool
        .query('select _realtime.apply_change($1::oid::regclass, $2, $3, $4, $5, $6, $7, $8) as r', [
          relid,
          action,
          newRow ?? null,
          oldRow ?? null,
          JSON.stringify(filters),
          JSON.stringify(chunk.map((g) => ({ claims: g.claims, subs: g.filterLists }))),
          xid,
          isolate,
        ])
        .then((r) => r.rows[0].r as ChangeResult);
    const chunks: (typeof groups)[] = [];
    for (let i = 0; i < groups.length; i += GROUPS_PER_CALL) chunks.push(groups.slice(i, i + GROUPS_PER_CALL));
    const results = await Promise.all(
      chunks.map((chunk) =>
        call(chunk, false).catch((e) => {
          if (typeof (e as { code?: unknown }).code !== 'string') throw e;
          return call(chunk, true);
        }),
      ),
    );
    const first = results[0]!;
    return {
      ...first,
      visible: results.flatMap((r) => r.visible),
      subs: results.flatMap((r) => r.subs),
      readable: Object.assign({}, ...results.map((r) => r.readable)),
    };
  }

  /** One row change of transaction `xid`: who gets it, with what, decided by Postgres. */
  async deliver(change: RowChange, commitTime: number, xid: number) {
    const { relation, action } = change;
    const candidates = [...(this.byRelation.get(relation.id) ?? [])].filter(
      (s) =>
        (s.params.action === '*' || s.params.action === action) &&
        (action === 'DELETE' || !change.new || !surelyFiltersOut(s.params.filters, relation, change.new)),
    );
    if (!candidates.length || this.limits.dbEvents.triggered) return;
    // wal2json's identity: the old row when the WAL has it, else the key columns of the new row.
    const old: Row | undefined =
      change.old ??
      (action === 'UPDATE' && change.new
        ? (pick(change.new, (k) => relation.columns.some((c) => c.name === k && c.key)) as Row)
        : undefined);
    if (action !== 'INSERT' && !old) return; // REPLICA IDENTITY NOTHING: nothing to say which row

    const filterIndex = new Map<string, number>();
    const filters: Filter[] = [];
    const groups = new Map<string, { claims: Member['claims']; subs: Subscription[]; filterLists: number[][] }>();
    for (const sub of candidates) {
      let g = groups.get(sub.channel.claimsKey);
      if (!g) groups.set(sub.channel.claimsKey, (g = { claims: sub.channel.claims, subs: [], filterLists: [] }));
      g.subs.push(sub);
      g.filterLists.push(
        sub.params.filters.map((f) => {
          const k = JSON.stringify(f);
          if (!filterIndex.has(k)) filterIndex.set(k, filters.push(f) - 1);
          return filterIndex.get(k)!;
        }),
      );
    }
    const groupList = [...groups.values()];
    const result = await this.decide(relation.id, action, change.new, old, filters, groupList, xid);
    const tooLarge = rowBytes(change.new) + rowBytes(old) > MAX_RECORD_BYTES;
    const commitTimestamp = new Date(commitTime).toISOString();
    let delivered = 0;

    groupList.forEach((group, i) => {
      const base = { schema: relation.schema, table: relation.table };
      const readable = new Set(result.readable[String(group.claims.role)] ?? []);
      // Only subscriptions whose filters pass hear of the row at all, errors included: before upstream's
      // fix_apply_rls_filter_role_leak every subscription of the role got the errors, whatever its filters.
      const matching = group.subs.filter((_, j) => result.subs[i]![j]);
      if (!matching.length) return;
      let error: string | null = null;
      if (action !== 'DELETE' && !result.pk.length) error = 'Error 400: Bad Request, no primary key';
      else if (action !== 'DELETE' && !result.pk.every((c) => readable.has(c))) error = 'Error 401: Unauthorized';
      // With no error, they get it if the group sees the row (RLS).
      const recipients = error || result.visible[i] ? matching : [];
      // One message per channel and column selection.
      const messages = new Map<string, { channel: Member; select: string[] | null; ids: number[] }>();
      for (const sub of recipients) {
        const k = `${sub.channel.id}|${JSON.stringify(sub.params.select)}`;
        let m = messages.get(k);
        if (!m) messages.set(k, (m = { channel: sub.channel, select: sub.params.select, ids: [] }));
        if (!m.ids.includes(sub.id)) m.ids.push(sub.id);
      }
      for (const { channel, select, ids } of messages.values()) {
        let data: Record<string, unknown>;
        if (error) {
          data = { ...base, type: action, columns: [], commit_timestamp: null, errors: [error] };
          if (action !== 'DELETE') data.record = {};
          if (action !== 'INSERT') data.old_record = {};
        } else {
          const shown = (c: string) => readable.has(c) && (!select || select.includes(c) || result.pk.includes(c));
          const small = (row: Record<string, unknown>) =>
            tooLarge ? pick(row, (k) => JSON.stringify(row[k]).length <= 64) : row;
          data = {
            ...base,
            type: action,
            commit_timestamp: commitTimestamp,
            columns: result.columns.filter((c) => shown(c.name)).map((c) => ({ name: c.name, type: c.typname })),
            errors: tooLarge ? ['Error 413: Payload Too Large'] : null,
          };
          if (action !== 'DELETE') data.record = small(pick(result.record, shown));
          if (action === 'UPDATE') data.old_record = small(pick(result.old_record, shown));
          if (action === 'DELETE')
            data.old_record = small(pick(result.old_record, (c) => shown(c) && (!result.rls || result.pk.includes(c))));
        }
        channel.send('postgres_changes', { ids, data }, { fanOut: true });
        delivered += ids.length;
      }
    });
    this.limits.dbEvents.add(delivered);
  }
}

const rowBytes = (row: Row | undefined) =>
  Object.values(row ?? {}).reduce((n, v) => n + (v === null ? 4 : Buffer.byteLength(v)), 0);

// Type oids whose text form says equality without Postgres: uuid (case aside), the integers, text and varchar.
const UUID = 2950;
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGERS = new Set([20, 21, 23]);
const TEXTS = new Set([25, 1043]);

/**
 * Whether an `eq` filter of the subscription certainly fails on `row` (the new row's text values), so the row is
 * not worth a query: a large transaction's changes in other tickets and workspaces were each decided by one for
 * every page listening to the table, holding back every change after them. Anything unsure goes to Postgres.
 */
export function surelyFiltersOut(filters: Filter[], relation: RowChange['relation'], row: Row) {
  return filters.some(([column, op, value, negate]) => {
    if (op !== 'eq' || negate) return false;
    const type = relation.columns.find((c) => c.name === column)?.typeOid;
    const actual = row[column];
    if (type === undefined || actual === undefined || actual === null) return false;
    const wanted = value.trim();
    // Only a canonical uuid: Postgres also reads braces and unhyphenated forms as the same uuid.
    if (type === UUID) return CANONICAL_UUID.test(wanted) && actual.toLowerCase() !== wanted.toLowerCase();
    if (INTEGERS.has(type)) return /^-?\d+$/.test(wanted) && BigInt(actual) !== BigInt(wanted);
    if (TEXTS.has(type)) return actual !== value; // text compares as written, spaces and all
    return false;
  });
}
