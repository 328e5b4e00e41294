// The forms of /w/:slug/settings/hours (docs/product.md "Business hours and SLA targets"): the week's
// opening hours, a holiday added or removed, the SLA targets; and of /w/:slug/settings/assignment.
// Read like every form here (Conform's parseWithZod); the database checks the same again
// (supabase/schemas/90_promises.sql).
import { z } from 'zod';
import { errorMessage } from '../errors/catalogue.server.ts';
import { PRIORITIES, type TicketPriority, UUID_RE } from '../helpdesk/ticket-terms.ts';
import { type Period, parseDay, WEEKDAYS } from '../promises/business-hours.ts';
import { parseDuration } from '../promises/durations.ts';
import { byIntent } from './helpdesk-schemas.server.ts';

const badRequest = { error: errorMessage('bad_request') };
const HOLIDAY_NAME_MAX_LENGTH = 80;
const holidayNameMessage = `Enter a name of 1 to ${HOLIDAY_NAME_MAX_LENGTH} characters.`;
const Day = z.iso.date({ error: errorMessage('date_invalid') });

/** One weekday's line ("08:00–12:00, 13:30–18:00"; empty: closed) as its periods. */
const dayLine = (weekday: number) =>
  z
    .string()
    .max(200, { error: errorMessage('hours_invalid') })
    .default('')
    .transform((line, ctx): Period[] => {
      const periods = parseDay(weekday, line);
      if (periods) return periods;
      ctx.addIssue({ code: 'custom', message: errorMessage('hours_invalid') });
      return z.NEVER;
    });

/** A target's field ("4h", "30m"; empty: none) as minutes. */
const target = z
  .string()
  .max(40, { error: errorMessage('sla_invalid') })
  .default('')
  .transform((text, ctx): number | null => {
    const minutes = parseDuration(text);
    if (minutes === undefined) return null;
    if (minutes !== null) return minutes;
    ctx.addIssue({ code: 'custom', message: errorMessage('sla_invalid') });
    return z.NEVER;
  });

/** The field names of a priority's targets: urgent_first, urgent_next, urgent_resolution, urgent_business. */
export const targetField = <W extends 'first' | 'next' | 'resolution' | 'business'>(
  priority: TicketPriority,
  what: W,
) => `${priority}_${what}` as const;

type WeekdayKey = (typeof WEEKDAYS)[number]['key'];
type TargetKey = `${TicketPriority}_${'first' | 'next' | 'resolution'}`;
type BusinessKey = `${TicketPriority}_business`;

// Built from the lists (the keys' types say what they are).
const weekShape = Object.fromEntries(WEEKDAYS.map((d) => [d.key, dayLine(d.weekday)])) as {
  [K in WeekdayKey]: ReturnType<typeof dayLine>;
};
const targetsShape = Object.fromEntries(
  PRIORITIES.flatMap((p) => [
    [targetField(p, 'first'), target],
    [targetField(p, 'next'), target],
    [targetField(p, 'resolution'), target],
    // A checkbox: sent ("on") when ticked.
    [targetField(p, 'business'), z.literal('on', badRequest).optional()],
  ]),
) as { [K in TargetKey]: typeof target } & { [K in BusinessKey]: z.ZodOptional<z.ZodLiteral<'on'>> };

export const HoursSchema = byIntent([
  z.object({ intent: z.literal('hours') }).extend(weekShape),
  z.object({
    intent: z.literal('add_holiday'),
    day: Day,
    name: z
      .string({ error: holidayNameMessage })
      .trim()
      .min(1, holidayNameMessage)
      .max(HOLIDAY_NAME_MAX_LENGTH, holidayNameMessage),
  }),
  z.object({ intent: z.literal('remove_holiday'), day: z.iso.date(badRequest) }),
  z.object({ intent: z.literal('targets') }).extend(targetsShape),
  // The acknowledgement outside business hours: one of the canned replies, or none (empty).
  z.object({
    intent: z.literal('after_hours'),
    canned_reply_id: z.string(badRequest).regex(UUID_RE, badRequest.error).optional(),
  }),
]);

const capMessage = errorMessage('cap_invalid');

/** /w/:slug/settings/assignment: the mode and the cap (empty: none). */
export const AssignmentSchema = byIntent([
  z.object({
    intent: z.literal('save'),
    mode: z.enum(['off', 'round_robin', 'least_open'], badRequest),
    max_open: z.coerce
      .number({ error: capMessage })
      .int({ error: capMessage })
      .min(1, { error: capMessage })
      .max(10_000, { error: capMessage })
      .optional(),
  }),
]);
