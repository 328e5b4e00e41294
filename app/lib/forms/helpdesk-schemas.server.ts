// The helpdesk's form schemas, one per intent, read with Conform like sign-in's
// (schemas.server.ts). Server-only, as zod must stay out of the browser
// (docs/decisions/006-javascript-budget.md); the pages repeat the rules as HTML constraints, the
// database as checks. Fields only a hand-made request gets wrong (an intent, a radio value, a
// select's option) carry the catalogue's bad_request.
import { z } from 'zod';
import {
  CANNED_REPLY_BODY_MAX_LENGTH,
  CANNED_REPLY_TITLE_MAX_LENGTH,
  MESSAGE_MAX_LENGTH,
  SUBJECT_MAX_LENGTH,
  WORKSPACE_NAME_MAX_LENGTH,
} from '../constants.ts';
import { errorMessage } from '../errors/catalogue.server.ts';
import { unknownPlaceholders } from '../helpdesk/canned-replies.ts';
import { TAG_COLOURS, TAG_NAME_RE } from '../helpdesk/tags.ts';
import {
  AGENT_STATUSES,
  assigneeValue,
  MEMBER_ROLES,
  PRIORITIES,
  STATUSES,
  UUID_RE,
} from '../helpdesk/ticket-terms.ts';
import { EmailSchema } from './schemas.server.ts';
import { SLUG_MAX_LENGTH, SLUG_MIN_LENGTH, SLUG_PATTERN } from './fields.ts';

const badRequest = { error: errorMessage('bad_request') };

/** A tag's name as typed: trimmed, lower case, then an identifier (docs/product.md#tags). */
const tagInvalid = { error: errorMessage('tag_invalid') };
export const TagNameSchema = z.string(tagInvalid).trim().toLowerCase().regex(TAG_NAME_RE, tagInvalid.error);
const IdSchema = z.string().regex(UUID_RE, badRequest.error);
const snoozeInvalid = { error: errorMessage('snooze_invalid') };

/** Addresses the app or its future pages use. */
export const RESERVED_SLUGS = new Set([
  'new',
  'admin',
  'api',
  'app',
  'auth',
  'login',
  'logout',
  'support',
  'w',
  'settings',
  'account',
  'onboarding',
  'invite',
  'www',
  'help',
  'static',
  'assets',
  'build',
]);

const nameMessage = `Enter a name of 1 to ${WORKSPACE_NAME_MAX_LENGTH} characters.`;
const slugLengthMessage = `Use ${SLUG_MIN_LENGTH} to ${SLUG_MAX_LENGTH} characters.`;

/** /onboarding: a new workspace. */
export const WorkspaceSchema = z.object({
  name: z.string({ error: nameMessage }).trim().min(1, nameMessage).max(WORKSPACE_NAME_MAX_LENGTH, nameMessage),
  slug: z
    .string({ error: slugLengthMessage })
    .trim()
    .toLowerCase()
    .min(SLUG_MIN_LENGTH, slugLengthMessage)
    .max(SLUG_MAX_LENGTH, slugLengthMessage)
    .regex(
      new RegExp(`^(?:${SLUG_PATTERN})$`),
      'Use lower-case letters, digits and single hyphens, e.g. "acme-support".',
    )
    .refine((s) => !RESERVED_SLUGS.has(s), 'That address is reserved. Choose another.'),
});

const subjectMessage = `Enter a subject of 1 to ${SUBJECT_MAX_LENGTH} characters.`;
const SubjectSchema = z
  .string({ error: subjectMessage })
  .trim()
  .min(1, subjectMessage)
  .max(SUBJECT_MAX_LENGTH, subjectMessage);

/** A message as written (not trimmed): something besides spaces, at most MESSAGE_MAX_LENGTH characters. */
export const BodySchema = z
  .string({ error: 'Write a message.' })
  .refine((s) => s.trim().length > 0, 'Write a message.')
  .refine((s) => s.length <= MESSAGE_MAX_LENGTH, errorMessage('message_too_long'));

/**
 * The per-render key of a form that creates a row: the database gives a repeated key the row of the
 * first send (a double click, a resubmitted POST). A malformed one is as good as none.
 */
const ClientKeySchema = z.string().regex(UUID_RE).optional().catch(undefined);

/** /support/:slug/new: a customer's new request. */
export const NewRequestSchema = z.object({ subject: SubjectSchema, body: BodySchema, client_key: ClientKeySchema });

/** The submit button's `intent` picks the schema; an unknown one is bad_request. */
export function byIntent<
  const O extends readonly [z.ZodObject<{ intent: z.ZodLiteral }>, ...z.ZodObject<{ intent: z.ZodLiteral }>[]],
>(options: O) {
  return z.discriminatedUnion('intent', options, badRequest);
}

/** /support/:slug/requests/:number: the requester replies, or marks it solved. */
export const PortalRequestSchema = byIntent([
  z.object({ intent: z.literal('reply'), body: BodySchema, client_key: ClientKeySchema }),
  z.object({ intent: z.literal('solve') }),
]);

/** A sidebar field's value when the page was rendered; without one, no check. */
const FromSchema = z.string().max(36).optional().catch(undefined);
/** The assignee's: a member's id, or NO_ASSIGNEE (also as its older word). */
const FromAssigneeSchema = z.string().max(36).transform(assigneeValue).optional().catch(undefined);

/** "Send and set status" on the agent's composer: keep it, or one of the statuses agents set. */
export const SEND_STATUSES = ['keep', ...AGENT_STATUSES] as const;

// Nobody (empty) or a member; the database checks membership (assignee_not_member) as well.
const AssigneeSchema = z.string().regex(UUID_RE, errorMessage('assignee_not_member')).optional();
const from = { from_status: FromSchema, from_priority: FromSchema, from_assignee: FromAssigneeSchema };

const PICK_REPLY_MESSAGE = 'Choose a canned reply.';

/**
 * /w/:slug/tickets/:number: the composer, and the sidebar. With JavaScript each sidebar field is
 * sent on its own as it changes (status, priority, assignee); without, "Save" sends the three
 * (save: only those that differ from what the page showed are written) and "Assign to me".
 */
export const TicketSchema = byIntent([
  z.object({
    intent: z.literal('send'),
    body: BodySchema,
    kind: z.enum(['reply', 'note'], badRequest).default('reply'),
    set_status: z.enum(SEND_STATUSES, badRequest).default('keep'),
    // The newest message the writer saw (the traffic cop); a malformed one is as good as none.
    last_seen_message_id: z.string().regex(UUID_RE).optional().catch(undefined),
    client_key: ClientKeySchema,
  }),
  z.object({ intent: z.literal('status'), status: z.enum(STATUSES, badRequest), from_status: FromSchema }),
  z.object({ intent: z.literal('priority'), priority: z.enum(PRIORITIES, badRequest), from_priority: FromSchema }),
  z.object({ intent: z.literal('assignee'), assignee: AssigneeSchema, from_assignee: FromAssigneeSchema }),
  z.object({ intent: z.literal('assign_me'), from_assignee: FromAssigneeSchema }),
  z.object({
    intent: z.literal('save'),
    status: z.enum(STATUSES, badRequest),
    priority: z.enum(PRIORITIES, badRequest),
    assignee: AssigneeSchema,
    ...from,
  }),
  // The sidebar's tags: add one by name (created if the agent may), remove one.
  z.object({ intent: z.literal('add_tag'), tag: TagNameSchema }),
  z.object({ intent: z.literal('remove_tag'), tag_id: IdSchema }),
  // Snooze until a preset or a date and time (the workspace's), or wake it now.
  z.object({
    intent: z.literal('snooze'),
    preset: z.enum(['later', 'tomorrow', 'monday', 'custom'], badRequest),
    at: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/, snoozeInvalid.error)
      .optional(),
  }),
  z.object({ intent: z.literal('wake') }),
  // Without JavaScript: the chosen canned reply goes into the composer (the page renders it again).
  // (by title: one per workspace).
  z.object({
    intent: z.literal('insert_canned_reply'),
    canned_reply: z
      .string({ error: PICK_REPLY_MESSAGE })
      .min(1, PICK_REPLY_MESSAGE)
      .max(CANNED_REPLY_TITLE_MAX_LENGTH, PICK_REPLY_MESSAGE),
  }),
]);

/** /w/:slug/tickets/:number/move: to Spam or Trash, and back (docs/product.md#spam-and-trash). */
export const MoveTicketSchema = z.union([
  z.object({ intent: z.enum(['spam', 'not_spam', 'trash', 'restore'], badRequest) }),
  // "Merge into…" (docs/product.md#merge): this ticket into the one chosen (its id).
  z.object({ intent: z.literal('merge'), into: IdSchema }),
]);

/** /w/:slug/tickets/:number/split: the requester's message that becomes a new ticket (docs/product.md#split). */
export const SplitSchema = z.object({ message: IdSchema });

/** /w/:slug: "Claim next"; available for automatic assignment, or away; a change to the selected tickets (or all matching the view). */
const bulkAction = { error: errorMessage('bulk_action_missing') };
/** A saved view's name: 1–60 characters once trimmed (docs/product.md#views-saved-views-mentions-and-search-the-inbox). */
const viewNameInvalid = { error: errorMessage('view_name_invalid') };
const ViewNameSchema = z.string(viewNameInvalid).trim().min(1, viewNameInvalid.error).max(60, viewNameInvalid.error);

export const InboxSchema = byIntent([
  z.object({ intent: z.literal('claim_next') }),
  // Admins: every ticket in Trash deleted for good now (the confirmation is a <details> step).
  z.object({ intent: z.literal('empty_trash') }),
  // "Save this view": the page's view, search, filters and sort come from its address (the form's action).
  z.object({ intent: z.literal('save_view'), name: ViewNameSchema, shared: z.literal('on', badRequest).optional() }),
  z.object({ intent: z.literal('availability'), available: z.enum(['on', 'off'], badRequest) }),
  z.object({
    intent: z.literal('bulk'),
    ticket: z.array(IdSchema).max(1000, badRequest.error).default([]),
    all_matching: z.literal('on', badRequest).optional(),
    // "assign:<member id>|me|none", "status:<status>", "priority:<priority>", "add_tag", "remove_tag", "merge",
    // or to Spam or Trash and back: "spam", "not_spam", "trash", "restore".
    bulk_action: z
      .string(bulkAction)
      .regex(
        /^(?:assign:(?:me|none|[0-9a-f-]{36})|status:[a-z]+|priority:[a-z]+|add_tag|remove_tag|merge|spam|not_spam|trash|restore)$/,
        bulkAction.error,
      ),
    tag: z.string().optional(),
    // A merge is confirmed (the second step: the tickets named, the one kept).
    confirm: z.literal('on', badRequest).optional(),
  }),
]);

/** /w/:slug/settings/members: invite, resend, revoke, change a role, remove a member. */
export const MembersSchema = byIntent([
  z.object({
    intent: z.literal('invite'),
    email: EmailSchema,
    role: z.enum(MEMBER_ROLES, badRequest).default('agent'),
  }),
  z.object({ intent: z.literal('resend'), invitation: z.string().regex(UUID_RE, badRequest.error) }),
  z.object({ intent: z.literal('revoke'), invitation: z.string().regex(UUID_RE, badRequest.error) }),
  z.object({
    intent: z.literal('role'),
    member: z.string().regex(UUID_RE, badRequest.error),
    role: z.enum(MEMBER_ROLES, badRequest),
  }),
  z.object({
    intent: z.literal('remove'),
    member: z.string().regex(UUID_RE, badRequest.error),
    // Who takes over their tickets that aren't closed; none: they are left unassigned.
    reassign_to: z.string().regex(UUID_RE, badRequest.error).optional(),
  }),
]);

/** /w/:slug/settings/tags: add, rename and colour, merge, delete; whether agents create tags. */
export const TagsSchema = byIntent([
  z.object({
    intent: z.literal('add'),
    name: TagNameSchema,
    colour: z.enum(TAG_COLOURS, badRequest).default('grey'),
  }),
  z.object({
    intent: z.literal('edit'),
    tag: IdSchema,
    name: TagNameSchema,
    colour: z.enum(TAG_COLOURS, badRequest),
  }),
  z.object({ intent: z.literal('merge'), tag: IdSchema, into: IdSchema }),
  z.object({ intent: z.literal('delete'), tag: IdSchema }),
  z.object({
    intent: z.literal('agents_create'),
    agents_create_tags: z.enum(['on', 'off'], badRequest).default('off'),
  }),
]);

/** /invite/:token: accept. */
export const AcceptInvitationSchema = byIntent([z.object({ intent: z.literal('accept') })]);

/** The time zones the settings page offers: the runtime's IANA list (the database checks its own). */
export const TIME_ZONES: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
const timeZones = new Set(TIME_ZONES);

/** /w/:slug/settings: name, address and time zone. */
export const SettingsSchema = WorkspaceSchema.extend({
  time_zone: z.string(badRequest).refine((tz) => timeZones.has(tz), badRequest),
});

const cannedTitleMessage = `Enter a title of 1 to ${CANNED_REPLY_TITLE_MAX_LENGTH} characters.`;
const cannedBodyMessage = `Write a reply of 1 to ${CANNED_REPLY_BODY_MAX_LENGTH.toLocaleString('en')} characters.`;
const CannedReplyId = z.string(badRequest).regex(UUID_RE, badRequest.error);
const CannedReplyFields = {
  title: z
    .string({ error: cannedTitleMessage })
    .trim()
    .min(1, cannedTitleMessage)
    .max(CANNED_REPLY_TITLE_MAX_LENGTH, cannedTitleMessage),
  // Trimmed: a reply is inserted into a message, where surrounding blank lines are in the way.
  body: z
    .string({ error: cannedBodyMessage })
    .trim()
    .min(1, cannedBodyMessage)
    .max(CANNED_REPLY_BODY_MAX_LENGTH, cannedBodyMessage)
    .superRefine((body, ctx) => {
      const [name] = unknownPlaceholders(body);
      if (name !== undefined) ctx.addIssue({ code: 'custom', message: errorMessage('placeholder_unknown', { name }) });
    }),
};

/** /w/:slug/settings/replies: add, preview (new or being edited), save an edit, delete. */
export const CannedRepliesSchema = byIntent([
  z.object({ intent: z.literal('create'), ...CannedReplyFields }),
  z.object({
    intent: z.literal('preview'),
    reply: CannedReplyId.optional(),
    title: z.string().optional(),
    body: CannedReplyFields.body,
  }),
  z.object({ intent: z.literal('update'), reply: CannedReplyId, ...CannedReplyFields }),
  z.object({ intent: z.literal('delete'), reply: CannedReplyId }),
]);

/** /w/:slug/tickets/new: an agent starts a conversation with a customer (88_rich_mail.sql). */
export const NewConversationSchema = z.object({
  requester: EmailSchema,
  subject: SubjectSchema,
  body: BodySchema,
  client_key: ClientKeySchema,
});

/** /w/:slug/tickets/:number/forward: the ticket, or one public message (`message`), to an outside address. */
export const ForwardSchema = z.object({
  to: EmailSchema,
  note: z
    .string()
    .default('')
    .refine((s) => s.length <= MESSAGE_MAX_LENGTH, errorMessage('message_too_long')),
  // "" (or none): the whole conversation.
  message: z.string().regex(UUID_RE, badRequest).optional(),
});

/** /w/:slug/tickets/:number/followers: add a follower by email address, or remove one (docs/product.md#followers). */
export const FollowerSchema = byIntent([
  z.object({ intent: z.literal('add_follower'), email: EmailSchema }),
  z.object({ intent: z.literal('remove_follower'), user_id: IdSchema }),
]);

/**
 * /w/:slug/views: rename, move or delete one of the saved views
 * (docs/product.md#views-saved-views-mentions-and-search-the-inbox).
 */
export const SavedViewsSchema = byIntent([
  z.object({ intent: z.literal('rename'), id: IdSchema, name: ViewNameSchema }),
  z.object({ intent: z.literal('move'), id: IdSchema, direction: z.enum(['up', 'down'], badRequest) }),
  z.object({ intent: z.literal('delete'), id: IdSchema }),
]);
