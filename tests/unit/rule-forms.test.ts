// Rules' terms and form (docs/product.md#rules): the lists the app offers are the ones the database checks
// (private.rule_shape_problem, supabase/schemas/95_rules.sql), and the form's rows are read into a rule,
// or refused at their field with the catalogue's message.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseWithZod } from '@conform-to/zod/v4';
import { describe, expect, it } from 'vitest';
import { errorMessage } from '~/lib/errors/catalogue.server.ts';
import { actionValue, conditionValue, RulesSchema, typedRule } from '~/lib/forms/rules-schemas.server.ts';
import { ACTION_TYPES, CONDITION_FIELDS, RULE_EVENTS, RULE_LIMITS, RULE_SET_STATUSES } from '~/lib/rules/terms.ts';

const SQL = readFileSync(path.join(__dirname, '..', '..', 'supabase', 'schemas', '95_rules.sql'), 'utf8');
const SHAPE = SQL.slice(
  SQL.indexOf('create function private.rule_shape_problem'),
  SQL.indexOf('create table public.rules'),
);

/** The errors of a refused submission, by field. */
const errorsOf = (s: ReturnType<typeof form>) => (s.status === 'error' ? s.error : undefined);

function form(fields: Record<string, string>) {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  return parseWithZod(data, { schema: RulesSchema });
}

describe('rules', () => {
  it("offers the database's conditions, actions and statuses", () => {
    const conditionBlock = SHAPE.slice(SHAPE.indexOf("case e ->> 'field'"), SHAPE.indexOf("return 'condition'"));
    const actionBlock = SHAPE.slice(SHAPE.indexOf("case e ->> 'type'"), SHAPE.indexOf("return 'action'"));
    const whens = (block: string) => [...block.matchAll(/when '([a-z_]+)' then/g)].map((m) => m[1]);
    expect(whens(conditionBlock)).toEqual(Object.keys(CONDITION_FIELDS));
    expect(whens(actionBlock)).toEqual(Object.keys(ACTION_TYPES));
    const statuses = /when 'set_status' then v in \(([^)]+)\)/.exec(SHAPE)?.[1];
    expect(statuses?.split(',').map((s) => s.trim().replaceAll("'", ''))).toEqual([...RULE_SET_STATUSES]);
    expect(SHAPE).toContain(`jsonb_array_length(p_conditions) > ${RULE_LIMITS.conditions}`);
    expect(SHAPE).toContain(`jsonb_array_length(p_actions) not between 1 and ${RULE_LIMITS.actions}`);
    expect(SQL).toContain(`wait_hours between 1 and ${RULE_LIMITS.waitHours}`);
    expect(SQL).toContain(`>= ${RULE_LIMITS.rules} then`);
    const events = /event text not null check \(event in \(([^)]+)\)\)/.exec(SQL)?.[1];
    expect(events?.split(',').map((e) => e.trim().replaceAll("'", ''))).toEqual([...RULE_EVENTS]);
    // The form's rows: as many as a rule may have.
    const shape = (RulesSchema.options[0] as unknown as { shape: Record<string, unknown> }).shape;
    expect(Object.keys(shape).filter((k) => /^c\d$/.test(k))).toHaveLength(RULE_LIMITS.conditions);
    expect(Object.keys(shape).filter((k) => /^a\d$/.test(k))).toHaveLength(RULE_LIMITS.actions);
  });

  it('reads values in the form the database keeps', () => {
    expect(conditionValue('requester_email', ' Ann@Example.COM ')).toBe('ann@example.com');
    expect(conditionValue('requester_domain', '@Example.com')).toBe('example.com');
    expect(conditionValue('requester_domain', 'localhost')).toBeNull();
    expect(conditionValue('priority', 'Urgent')).toBe('urgent');
    expect(conditionValue('priority', 'huge')).toBeNull();
    expect(conditionValue('assignee', 'Nobody')).toBe('none');
    expect(conditionValue('subject', ' , ,')).toBeNull();
    expect(conditionValue('tag', 'two words')).toBeNull();
    expect(conditionValue('channel', 'Email')).toBe('email');
    expect(actionValue('set_status', 'closed')).toBeNull();
    expect(actionValue('set_status', 'Pending')).toBe('pending');
    expect(actionValue('assign_auto', 'anything')).toBe('');
    expect(actionValue('notify', 'Assignee')).toBe('assignee');
    expect(actionValue('add_note', 'x'.repeat(RULE_LIMITS.note + 1))).toBeNull();
  });

  it('turns the rows that say something into a rule, in order', () => {
    const s = form({
      intent: 'create',
      name: ' Refunds ',
      event: 'ticket_created',
      match: 'any',
      c0: '',
      c0_value: 'ignored',
      c1: 'subject:contains',
      c1_value: 'refund, money back',
      a0: 'add_tag',
      a0_value: 'Refund',
      a2: 'assign_auto',
    });
    expect(s.status).toBe('success');
    if (s.status !== 'success') return;
    expect(typedRule(s.value as never)).toEqual({
      name: 'Refunds',
      event: 'ticket_created',
      wait_status: null,
      wait_hours: null,
      match_all: false,
      conditions: [{ row: 1, field: 'subject', op: 'contains', value: 'refund, money back' }],
      actions: [
        { row: 0, type: 'add_tag', value: 'refund' },
        { row: 2, type: 'assign_auto', value: '' },
      ],
    });
  });

  it('refuses at the field: no name, no action, a value of the wrong form, a wait without hours', () => {
    const s = form({
      intent: 'create',
      name: '',
      event: 'ticket_waited',
      wait_status: 'pending',
      wait_hours: '0',
      c0: 'priority:is',
      c0_value: 'huge',
    });
    expect(s.status).toBe('error');
    expect(errorsOf(s)).toMatchObject({
      name: [errorMessage('rule_name_invalid')],
      wait_hours: [errorMessage('rule_wait_invalid')],
      c0_value: [errorMessage('rule_value_invalid', { what: 'a priority: low, normal, high or urgent' })],
      a0: [errorMessage('rule_needs_action')],
    });
    expect(
      errorsOf(form({ intent: 'create', name: 'x', event: 'ticket_created', c0: 'colour:is', a0: 'assign_auto' })),
    ).toMatchObject({
      c0: [errorMessage('bad_request')],
    });
  });

  it('tests without a name or an action', () => {
    const s = form({ intent: 'test', event: 'ticket_created', c0: 'subject:contains', c0_value: 'refund' });
    expect(s.status).toBe('success');
  });
});
