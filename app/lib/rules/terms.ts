// Rules' terms (docs/product.md#rules; docs/decisions/061-rules.md): the events, the conditions (a field
// and how it is compared) and the actions, with the words the settings page uses for them. The database
// checks the same lists (private.rule_shape_problem, supabase/schemas/95_rules.sql; a unit test holds
// them equal). Shared by the page and its action.
/** rules.event's values (checked text in the database: a unit test holds the two lists equal). */
export const RULE_EVENTS = ['ticket_created', 'customer_replied', 'ticket_waited'] as const;
export type RuleEvent = (typeof RULE_EVENTS)[number];
export const RULE_EVENT_LABELS: Record<RuleEvent, string> = {
  ticket_created: 'A ticket is created',
  customer_replied: 'A customer replies',
  ticket_waited: 'A ticket has waited in a status',
};

/** The new rule's form, where the page's forms are told apart by their rule's id. */
export const NEW_RULE = 'new';

/** A rule's limits, as the database holds them. */
export const RULE_LIMITS = {
  rules: 50,
  name: 80,
  conditions: 5,
  actions: 5,
  value: 200,
  note: 5000,
  waitHours: 1000,
} as const;

/** The statuses a waiting rule may watch (a closed ticket runs nothing). */
export const WAIT_STATUSES = ['new', 'open', 'pending', 'solved'] as const;

/** What a condition reads, and how: words in the text, or a value that is or isn't the ticket's. */
export const CONDITION_FIELDS = {
  subject: { label: 'Subject', ops: ['contains', 'not_contains'] },
  body: { label: 'Message', ops: ['contains', 'not_contains'] },
  requester_email: { label: "Requester's email", ops: ['is', 'is_not'] },
  requester_domain: { label: "Requester's domain", ops: ['is', 'is_not'] },
  priority: { label: 'Priority', ops: ['is', 'is_not'] },
  status: { label: 'Status', ops: ['is', 'is_not'] },
  tag: { label: 'Tag', ops: ['is', 'is_not'] },
  assignee: { label: 'Assignee', ops: ['is', 'is_not'] },
  channel: { label: 'Channel', ops: ['is', 'is_not'] },
} as const;
export type ConditionField = keyof typeof CONDITION_FIELDS;
export type ConditionOp = 'contains' | 'not_contains' | 'is' | 'is_not';
export const OP_LABELS: Record<ConditionOp, string> = {
  contains: 'contains',
  not_contains: 'doesn’t contain',
  is: 'is',
  is_not: 'isn’t',
};

/** The choices of a condition's select: "subject:contains", … (field and operator in one). */
export const CONDITION_CHOICES = Object.entries(CONDITION_FIELDS).flatMap(([field, f]) =>
  f.ops.map((op) => ({ value: `${field}:${op}`, label: `${f.label} ${OP_LABELS[op]}` })),
);

export const ACTION_TYPES = {
  set_priority: 'Set priority to',
  set_status: 'Set status to',
  assign: 'Assign to',
  assign_auto: 'Assign by automatic assignment',
  add_tag: 'Add tag',
  send_reply: 'Send canned reply',
  add_note: 'Add internal note',
  notify: 'Notify',
} as const;
export type ActionType = keyof typeof ACTION_TYPES;

/** The statuses a rule may set: what an agent sets by hand. */
export const RULE_SET_STATUSES = ['open', 'pending', 'solved'] as const;
export const CHANNELS = ['portal', 'email'] as const;

/** A stored condition and action (rules.conditions, rules.actions). */
export interface RuleCondition {
  field: ConditionField;
  op: ConditionOp;
  value: string;
}
export interface RuleAction {
  type: ActionType;
  value?: string;
}

/** What the value of a condition or action is, for the form's hint and its refusal ("Enter …"). */
export const VALUE_HINTS: Record<ConditionField | ActionType, string> = {
  subject: 'words or phrases, separated by commas',
  body: 'words or phrases, separated by commas',
  requester_email: 'an email address',
  requester_domain: 'a domain such as example.com',
  priority: 'a priority: low, normal, high or urgent',
  status: 'a status: new, open, pending, solved or closed',
  tag: 'the name of an existing tag',
  assignee: 'a member’s name, or nobody',
  channel: 'a channel: portal or email',
  set_priority: 'a priority: low, normal, high or urgent',
  set_status: 'a status: open, pending or solved',
  assign: 'a member’s name',
  assign_auto: 'nothing',
  add_tag: 'the name of an existing tag',
  send_reply: 'the title of a canned reply',
  add_note: 'the note’s text',
  notify: 'a member’s name, or assignee (whoever has the ticket)',
};
