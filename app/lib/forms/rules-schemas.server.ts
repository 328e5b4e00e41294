// The rules page's form (/w/:slug/settings/rules; docs/product.md#rules). A rule's conditions and actions
// are rows of flat fields (c0 / c0_value … c4, a0 / a0_value … a4: a select and a text), so the form
// works without JavaScript and a refusal comes back at its row. This checks what can be checked without
// the database (the words, the values' form, the wait); the action then looks up the names (a tag, a
// member, a canned reply) and the database checks everything again (private.rule_shape_problem).
import { z } from 'zod';
import { errorMessage } from '../errors/catalogue.server.ts';
import { TAG_NAME_RE } from '../helpdesk/tags.ts';
import { PRIORITIES, STATUSES, UUID_RE } from '../helpdesk/ticket-terms.ts';
import {
  ACTION_TYPES,
  type ActionType,
  CHANNELS,
  CONDITION_CHOICES,
  type ConditionField,
  type ConditionOp,
  RULE_EVENTS,
  RULE_LIMITS,
  RULE_SET_STATUSES,
  VALUE_HINTS,
  WAIT_STATUSES,
} from '../rules/terms.ts';
import { byIntent } from './helpdesk-schemas.server.ts';

const badRequest = { error: errorMessage('bad_request') };
const Id = z.string(badRequest).regex(UUID_RE, badRequest.error);
const nameMessage = errorMessage('rule_name_invalid');
const choice = () => z.string(badRequest).max(40, badRequest).default('');
const text = () =>
  z
    .string(badRequest)
    .max(RULE_LIMITS.note + 100, badRequest)
    .default('');
// RULE_LIMITS.conditions and RULE_LIMITS.actions rows (a unit test holds them equal).
const Rows = {
  ...{ c0: choice(), c1: choice(), c2: choice(), c3: choice(), c4: choice() },
  ...{ c0_value: text(), c1_value: text(), c2_value: text(), c3_value: text(), c4_value: text() },
  ...{ a0: choice(), a1: choice(), a2: choice(), a3: choice(), a4: choice() },
  ...{ a0_value: text(), a1_value: text(), a2_value: text(), a3_value: text(), a4_value: text() },
};

const Definition = {
  // Checked with the rows below (superRefine), so one answer names every field to fix.
  name: z.string(badRequest).trim().default(''),
  event: z.enum(RULE_EVENTS, badRequest),
  wait_status: z.string(badRequest).default(''),
  wait_hours: z.string(badRequest).default(''),
  match: z.enum(['all', 'any'], badRequest).default('all'),
  ...Rows,
};

/** A condition or action as typed, before the names in it are looked up. */
export interface TypedCondition {
  row: number;
  field: ConditionField;
  op: ConditionOp;
  value: string;
}
export interface TypedAction {
  row: number;
  type: ActionType;
  value: string;
}
export interface TypedRule {
  name: string;
  event: (typeof RULE_EVENTS)[number];
  wait_status: (typeof WAIT_STATUSES)[number] | null;
  wait_hours: number | null;
  match_all: boolean;
  conditions: TypedCondition[];
  actions: TypedAction[];
}

const lower = (v: string) => v.trim().toLowerCase();
const isEmail = (v: string) => /^[^@\s]+@[^@\s]+$/.test(v);
const isDomain = (v: string) => /^[^@\s]+\.[^@\s]+$/.test(v);
const words = (v: string) => v.trim().length <= RULE_LIMITS.value && v.replace(/[\s,]/g, '') !== '';
const named = (v: string) => v.trim() !== '' && v.trim().length <= RULE_LIMITS.value;

/** A condition's value in the form the database keeps (names stay names until looked up), or null if it can't be one. */
export function conditionValue(field: ConditionField, raw: string): string | null {
  const v = raw.trim();
  switch (field) {
    case 'subject':
    case 'body':
      return words(v) ? v : null;
    case 'requester_email':
      return isEmail(lower(v)) && v.length <= RULE_LIMITS.value ? lower(v) : null;
    case 'requester_domain': {
      const domain = lower(v).replace(/^@/, '');
      return isDomain(domain) && domain.length <= RULE_LIMITS.value ? domain : null;
    }
    case 'priority':
      return (PRIORITIES as readonly string[]).includes(lower(v)) ? lower(v) : null;
    case 'status':
      return (STATUSES as readonly string[]).includes(lower(v)) ? lower(v) : null;
    case 'tag':
      return TAG_NAME_RE.test(lower(v)) ? lower(v) : null;
    case 'assignee':
      return ['nobody', 'none'].includes(lower(v)) ? 'none' : named(v) ? v : null;
    case 'channel':
      return (CHANNELS as readonly string[]).includes(lower(v)) ? lower(v) : null;
  }
}

/** An action's value as typed, checked for its form; '' for automatic assignment, which takes none. */
export function actionValue(type: ActionType, raw: string): string | null {
  const v = raw.trim();
  switch (type) {
    case 'set_priority':
      return (PRIORITIES as readonly string[]).includes(lower(v)) ? lower(v) : null;
    case 'set_status':
      return (RULE_SET_STATUSES as readonly string[]).includes(lower(v)) ? lower(v) : null;
    case 'assign_auto':
      return '';
    case 'add_tag':
      return TAG_NAME_RE.test(lower(v)) ? lower(v) : null;
    case 'add_note':
      return v !== '' && v.length <= RULE_LIMITS.note ? v : null;
    case 'notify':
      return lower(v) === 'assignee' ? 'assignee' : named(v) ? v : null;
    case 'assign':
    case 'send_reply':
      return named(v) ? v : null;
  }
}

const CHOICES = new Set(CONDITION_CHOICES.map((c) => c.value));
const isActionType = (v: string): v is ActionType => Object.hasOwn(ACTION_TYPES, v);

type Fields = Record<string, string>;

/** The rows that say something, read (or the issues that say why not, at their fields). */
function readRows(v: Fields, needAction: boolean) {
  const issues: { path: string; message: string }[] = [];
  const conditions: TypedCondition[] = [];
  const actions: TypedAction[] = [];
  for (let row = 0; row < RULE_LIMITS.conditions; row++) {
    const choice = v[`c${row}`] ?? '';
    if (!choice) continue;
    if (!CHOICES.has(choice)) {
      issues.push({ path: `c${row}`, message: badRequest.error });
      continue;
    }
    const [field, op] = choice.split(':') as [ConditionField, ConditionOp];
    const value = conditionValue(field, v[`c${row}_value`] ?? '');
    if (value === null)
      issues.push({ path: `c${row}_value`, message: errorMessage('rule_value_invalid', { what: VALUE_HINTS[field] }) });
    else conditions.push({ row, field, op, value });
  }
  for (let row = 0; row < RULE_LIMITS.actions; row++) {
    const type = v[`a${row}`] ?? '';
    if (!type) continue;
    if (!isActionType(type)) {
      issues.push({ path: `a${row}`, message: badRequest.error });
      continue;
    }
    const value = actionValue(type, v[`a${row}_value`] ?? '');
    if (value === null)
      issues.push({ path: `a${row}_value`, message: errorMessage('rule_value_invalid', { what: VALUE_HINTS[type] }) });
    else actions.push({ row, type, value });
  }
  if (needAction && !actions.length && !issues.some((i) => i.path.startsWith('a')))
    issues.push({ path: 'a0', message: errorMessage('rule_needs_action') });
  return { issues, conditions, actions };
}

/** The wait of a waiting rule: a status and whole business hours; null for the other events. */
function readWait(v: { event: string; wait_status: string; wait_hours: string }) {
  if (v.event !== 'ticket_waited') return { wait_status: null, wait_hours: null };
  const hours = /^\d{1,4}$/.test(v.wait_hours.trim()) ? Number(v.wait_hours.trim()) : 0;
  const status = (WAIT_STATUSES as readonly string[]).includes(v.wait_status)
    ? (v.wait_status as (typeof WAIT_STATUSES)[number])
    : null;
  return hours >= 1 && hours <= RULE_LIMITS.waitHours && status ? { wait_status: status, wait_hours: hours } : null;
}

/**
 * /w/:slug/settings/rules: add a rule, save one, test one (the form as it is, saved or not), and on a
 * listed rule: switch it on or off, move it up or down, delete it.
 */
export const RulesSchema = byIntent([
  z.object({ intent: z.literal('create'), ...Definition }),
  z.object({ intent: z.literal('update'), rule: Id, ...Definition }),
  // Testing needs no name and no action: only what decides which tickets match.
  z.object({ intent: z.literal('test'), rule: Id.optional(), ...Definition }),
  z.object({ intent: z.literal('enable'), rule: Id }),
  z.object({ intent: z.literal('disable'), rule: Id }),
  z.object({ intent: z.literal('up'), rule: Id }),
  z.object({ intent: z.literal('down'), rule: Id }),
  z.object({ intent: z.literal('delete'), rule: Id }),
]).superRefine((v, ctx) => {
  if (v.intent !== 'create' && v.intent !== 'update' && v.intent !== 'test') return;
  const fields = v as unknown as Fields;
  if (v.intent !== 'test' && (!v.name || v.name.length > RULE_LIMITS.name))
    ctx.addIssue({ code: 'custom', path: ['name'], message: nameMessage });
  if (!readWait(v)) ctx.addIssue({ code: 'custom', path: ['wait_hours'], message: errorMessage('rule_wait_invalid') });
  for (const issue of readRows(fields, v.intent !== 'test').issues)
    ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
});

/** A valid submission's rule, as typed (names not looked up yet). */
export function typedRule(v: Fields): TypedRule {
  const wait = readWait(v as Fields & { event: string; wait_status: string; wait_hours: string });
  const { conditions, actions } = readRows(v, false);
  return {
    name: v.name ?? '',
    event: v.event as TypedRule['event'],
    wait_status: wait?.wait_status ?? null,
    wait_hours: wait?.wait_hours ?? null,
    match_all: v.match !== 'any',
    conditions,
    actions,
  };
}
