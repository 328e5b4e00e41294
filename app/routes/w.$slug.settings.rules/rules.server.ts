// The rules page's loader and action (route.tsx): the workspace's rules in order, each as its form shows
// it (names, not ids) and as one sentence; add, save, test, switch on or off, move, delete. Row-level
// security decides every read and write (admins write; docs/decisions/061-rules.md).
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { RulesSchema, typedRule, type TypedRule } from '~/lib/forms/rules-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { PRIORITY_LABELS, STATUS_LABELS, UUID_RE } from '~/lib/helpdesk/ticket-terms.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import {
  ACTION_TYPES,
  CONDITION_FIELDS,
  NEW_RULE,
  OP_LABELS,
  RULE_EVENT_LABELS,
  type RuleAction,
  type RuleCondition,
  type RuleEvent,
} from '~/lib/rules/terms.ts';
import type { Supabase } from '~/lib/supabase/client.server.ts';

const NOTICES = {
  added: 'Rule added.',
  saved: 'Rule saved.',
  deleted: 'Rule deleted.',
  enabled: 'Rule switched on.',
  disabled: 'Rule switched off.',
  moved: 'Order saved.',
} as const;
type Notice = keyof typeof NOTICES;

/** The workspace's tags, members and canned replies: what a rule's names and ids stand for. */
async function references(request: Request, supabase: Supabase, workspaceId: string) {
  const [tags, members, replies] = await Promise.all([
    supabase.from('tags').select('id, name').eq('workspace_id', workspaceId).order('name'),
    supabase
      .from('memberships')
      .select('user_id, profile:profiles!memberships_user_profile_fkey(display_name)')
      .eq('workspace_id', workspaceId),
    supabase.from('canned_replies').select('id, title').eq('workspace_id', workspaceId).order('title'),
  ]);
  for (const { error } of [tags, members, replies]) if (error) throwDbError(request, error, 'rule references');
  const people = (members.data ?? [])
    .map((m) => ({ id: m.user_id, name: m.profile?.display_name ?? 'Unknown' }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { tags: tags.data ?? [], people, replies: replies.data ?? [] };
}
type References = Awaited<ReturnType<typeof references>>;

/** A stored value as the form shows it: a tag's name, a member's name, a canned reply's title. */
function shownValue(kind: string, value: string | undefined, refs: References): string {
  if (value === undefined) return '';
  const gone = '(deleted)';
  if (kind === 'tag' || kind === 'add_tag') return refs.tags.find((t) => t.id === value)?.name ?? gone;
  if (kind === 'send_reply') return refs.replies.find((r) => r.id === value)?.title ?? gone;
  if (value === 'none') return 'nobody';
  if (value === 'assignee') return 'assignee';
  if (kind === 'assignee' || kind === 'assign' || kind === 'notify')
    return refs.people.find((p) => p.id === value)?.name ?? gone;
  return value;
}

/** "Subject contains refund", "Add tag refund": one line of a rule's summary. */
function conditionLine(c: RuleCondition, refs: References) {
  const value = shownValue(c.field, c.value, refs);
  const said =
    c.field === 'priority'
      ? (PRIORITY_LABELS[value as keyof typeof PRIORITY_LABELS] ?? value)
      : c.field === 'status'
        ? (STATUS_LABELS[value as keyof typeof STATUS_LABELS] ?? value)
        : value;
  return `${CONDITION_FIELDS[c.field].label} ${OP_LABELS[c.op]} “${said}”`;
}
function actionLine(a: RuleAction, refs: References) {
  return a.type === 'assign_auto'
    ? ACTION_TYPES[a.type]
    : `${ACTION_TYPES[a.type]} “${shownValue(a.type, a.value, refs)}”`;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const [{ data: rules, error }, refs] = await Promise.all([
    supabase
      .from('rules')
      .select('id, name, enabled, event, wait_status, wait_hours, match_all, conditions, actions')
      .eq('workspace_id', workspace.id)
      .order('position')
      .order('id'),
    references(request, supabase, workspace.id),
  ]);
  if (error) throwDbError(request, error, 'rules');
  const notice = new URL(request.url).searchParams.get('done');
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace,
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    // What the value fields suggest (a datalist: the names a rule can refer to).
    suggestions: [
      ...refs.tags.map((t) => t.name),
      ...refs.people.map((p) => p.name),
      ...refs.replies.map((r) => r.title),
    ],
    rules: rules.map((r) => {
      const conditions = r.conditions as unknown as RuleCondition[];
      const actions = r.actions as unknown as RuleAction[];
      const form: Record<string, string> = {
        name: r.name,
        event: r.event,
        wait_status: r.wait_status ?? '',
        wait_hours: r.wait_hours?.toString() ?? '',
        match: r.match_all ? 'all' : 'any',
      };
      conditions.forEach((c, i) => {
        form[`c${i}`] = `${c.field}:${c.op}`;
        form[`c${i}_value`] = shownValue(c.field, c.value, refs);
      });
      actions.forEach((a, i) => {
        form[`a${i}`] = a.type;
        form[`a${i}_value`] = shownValue(a.type, a.value, refs);
      });
      return {
        id: r.id,
        name: r.name,
        enabled: r.enabled,
        when:
          r.event === 'ticket_waited'
            ? `A ticket has waited ${r.wait_hours} business hour${r.wait_hours === 1 ? '' : 's'} in ${STATUS_LABELS[r.wait_status ?? 'open']}`
            : RULE_EVENT_LABELS[r.event as RuleEvent],
        match: r.match_all ? 'all' : 'any',
        conditions: conditions.map((c) => conditionLine(c, refs)),
        actions: actions.map((a) => actionLine(a, refs)),
        form,
      };
    }),
  });
}

/** The typed rule with its names looked up, or the fields whose name is nobody's. */
function resolve(rule: TypedRule, refs: References) {
  const fieldErrors: Record<string, string[]> = {};
  const person = (name: string) => {
    const found = refs.people.filter((p) => p.name.toLowerCase() === name.trim().toLowerCase());
    return found.length === 1 ? found[0]!.id : undefined;
  };
  const lookUp = (kind: string, value: string, path: string): string | undefined => {
    let id: string | undefined = value;
    let code: 'rule_tag_unknown' | 'rule_agent_unknown' | 'rule_reply_unknown' | undefined;
    if (kind === 'tag' || kind === 'add_tag') {
      id = refs.tags.find((t) => t.name === value)?.id;
      code = 'rule_tag_unknown';
    } else if (kind === 'send_reply') {
      id = refs.replies.find((r) => r.title.toLowerCase() === value.toLowerCase())?.id;
      code = 'rule_reply_unknown';
    } else if (
      (kind === 'assignee' || kind === 'assign' || kind === 'notify') &&
      !['none', 'assignee'].includes(value)
    ) {
      id = person(value);
      code = 'rule_agent_unknown';
    }
    if (id === undefined && code) fieldErrors[path] = [errorMessage(code)];
    return id;
  };
  const conditions = rule.conditions.map((c) => ({
    field: c.field,
    op: c.op,
    value: lookUp(c.field, c.value, `c${c.row}_value`) ?? '',
  }));
  const actions = rule.actions.map((a) =>
    a.type === 'assign_auto'
      ? { type: a.type }
      : { type: a.type, value: lookUp(a.type, a.value, `a${a.row}_value`) ?? '' },
  );
  return { conditions, actions, fieldErrors };
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), RulesSchema);
  const raw = submission.payload.rule;
  const target = typeof raw === 'string' && UUID_RE.test(raw) ? raw : NEW_RULE;
  if (submission.status !== 'success')
    return dataWithSession(request, { result: submission.reply(), target, preview: null }, { status: 400 });
  const value = submission.value;
  const done = (notice: Notice) => redirectWithSession(request, `/w/${workspace.slug}/settings/rules?done=${notice}`);
  const refuse = (error: Parameters<typeof mapDbError>[0] | null, context: string) => {
    // 23505: the name is another rule's (rules_name_key); no row: deleted meanwhile, or not an admin's.
    if (error?.code === '23505')
      return dataWithSession(
        request,
        {
          result: submission.reply({ fieldErrors: { name: [errorMessage('rule_name_taken')] } }),
          target,
          preview: null,
        },
        { status: errorStatus('rule_name_taken') },
      );
    const { message, status } = error
      ? mapDbError(error, context)
      : { message: errorMessage('not_found'), status: errorStatus('not_found') };
    return dataWithSession(
      request,
      { result: submission.reply({ formErrors: [message] }), target, preview: null },
      { status },
    );
  };

  if (value.intent === 'enable' || value.intent === 'disable') {
    const { data: rows, error } = await supabase
      .from('rules')
      .update({ enabled: value.intent === 'enable' })
      .eq('workspace_id', workspace.id)
      .eq('id', value.rule)
      .select('id');
    return error || !rows.length
      ? refuse(error, 'switch rule')
      : done(value.intent === 'enable' ? 'enabled' : 'disabled');
  }
  if (value.intent === 'up' || value.intent === 'down') {
    const { error } = await supabase.rpc('move_rule', { p_rule_id: value.rule, p_up: value.intent === 'up' });
    return error ? refuse(error, 'move rule') : done('moved');
  }
  if (value.intent === 'delete') {
    const { data: rows, error } = await supabase
      .from('rules')
      .delete()
      .eq('workspace_id', workspace.id)
      .eq('id', value.rule)
      .select('id');
    return error || !rows.length ? refuse(error, 'delete rule') : done('deleted');
  }

  const rule = typedRule(value as unknown as Record<string, string>);
  const { conditions, actions, fieldErrors } = resolve(rule, await references(request, supabase, workspace.id));
  if (Object.keys(fieldErrors).length)
    return dataWithSession(
      request,
      { result: submission.reply({ fieldErrors }), target, preview: null },
      { status: errorStatus('rule_tag_unknown') },
    );

  if (value.intent === 'test') {
    const { data: matches, error } = await supabase.rpc('rule_preview', {
      p_workspace_id: workspace.id,
      p_event: rule.event,
      p_match_all: rule.match_all,
      p_conditions: conditions,
      p_wait_status: rule.wait_status ?? undefined,
      p_wait_hours: rule.wait_hours ?? undefined,
    });
    if (error) return refuse(error, 'test rule');
    return dataWithSession(request, { result: submission.reply(), target, preview: matches });
  }

  const definition = {
    name: rule.name,
    event: rule.event,
    wait_status: rule.wait_status,
    wait_hours: rule.wait_hours,
    match_all: rule.match_all,
    conditions,
    actions,
  };
  if (value.intent === 'create') {
    const { error } = await supabase.from('rules').insert({ workspace_id: workspace.id, ...definition });
    return error ? refuse(error, 'add rule') : done('added');
  }
  const { data: rows, error } = await supabase
    .from('rules')
    .update(definition)
    .eq('workspace_id', workspace.id)
    .eq('id', value.rule)
    .select('id');
  return error || !rows.length ? refuse(error, 'save rule') : done('saved');
}
