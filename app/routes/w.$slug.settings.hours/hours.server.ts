// The hours page's loader and action (route.tsx): the week's opening hours, holidays and SLA targets,
// each form saved on its own.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { requireUser } from '~/lib/auth/session.server.ts';
import { errorMessage, errorStatus } from '~/lib/errors/catalogue.server.ts';
import { mapDbError, throwDbError } from '~/lib/errors/from-db.server.ts';
import { HoursSchema, targetField } from '~/lib/forms/promises-schemas.server.ts';
import { parseSubmission } from '~/lib/forms/schemas.server.ts';
import { PRIORITIES } from '~/lib/helpdesk/ticket-terms.ts';
import { requireAdmin } from '~/lib/helpdesk/workspace-access.server.ts';
import { dataWithSession, readFormData, redirectWithSession, requireSameOrigin } from '~/lib/http/responses.server.ts';
import { formatDay, WEEKDAYS } from '~/lib/promises/business-hours.ts';
import { formatDuration } from '~/lib/promises/durations.ts';

const NOTICES = {
  hours: 'Opening hours saved.',
  holiday: 'Holiday added.',
  removed: 'Holiday removed.',
  targets: 'Targets saved.',
  after_hours: 'Acknowledgement saved.',
} as const;
type Notice = keyof typeof NOTICES;

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const [zone, hours, holidays, targets, canned, afterHours] = await Promise.all([
    supabase.from('workspaces').select('time_zone').eq('id', workspace.id).single(),
    supabase.from('business_hours').select('weekday, opens, closes').eq('workspace_id', workspace.id).order('opens'),
    supabase.from('holidays').select('day, name').eq('workspace_id', workspace.id).order('day'),
    supabase.from('sla_targets').select('*').eq('workspace_id', workspace.id),
    supabase.from('canned_replies').select('id, title').eq('workspace_id', workspace.id).order('title'),
    supabase.from('after_hours_replies').select('canned_reply_id').eq('workspace_id', workspace.id).maybeSingle(),
  ]);
  for (const { error } of [zone, hours, holidays, targets, canned, afterHours])
    if (error) throwDbError(request, error, 'hours');
  const notice = new URL(request.url).searchParams.get('done');
  return dataWithSession(request, {
    adminOf: workspace.slug,
    workspace,
    timeZone: zone.data?.time_zone ?? 'UTC',
    notice: notice && notice in NOTICES ? NOTICES[notice as Notice] : null,
    // No period at all: open around the clock (the database's rule, private.business_periods).
    aroundTheClock: !hours.data?.length,
    days: WEEKDAYS.map((d) => ({
      ...d,
      value: formatDay((hours.data ?? []).filter((h) => h.weekday === d.weekday)),
    })),
    holidays: holidays.data ?? [],
    cannedReplies: canned.data ?? [],
    afterHoursReply: afterHours.data?.canned_reply_id ?? null,
    targets: PRIORITIES.map((priority) => {
      const t = targets.data?.find((row) => row.priority === priority);
      return {
        priority,
        first: formatDuration(t?.first_response_minutes),
        next: formatDuration(t?.next_response_minutes),
        resolution: formatDuration(t?.resolution_minutes),
        business: t?.business_hours ?? true,
      };
    }),
  });
}

export async function action({ request, params }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const { user, supabase } = await requireUser(request);
  const workspace = await requireAdmin(request, supabase, user.id, params.slug ?? '');
  const submission = parseSubmission(await readFormData(request), HoursSchema);
  if (submission.status !== 'success') return dataWithSession(request, { result: submission.reply() }, { status: 400 });
  const value = submission.value;
  const done = (notice: Notice) => redirectWithSession(request, `/w/${workspace.slug}/settings/hours?done=${notice}`);
  const refuse = (error: Parameters<typeof mapDbError>[0], context: string) => {
    // 23505: the day is a holiday already (holidays_pkey).
    if (error.code === '23505') {
      const reply = submission.reply({ fieldErrors: { day: [errorMessage('holiday_taken')] } });
      return dataWithSession(request, { result: reply }, { status: errorStatus('holiday_taken') });
    }
    const { message, status } = mapDbError(error, context);
    return dataWithSession(request, { result: submission.reply({ formErrors: [message] }) }, { status });
  };

  switch (value.intent) {
    case 'hours': {
      const periods = WEEKDAYS.flatMap((d) => value[d.key]);
      const { error } = await supabase.rpc('save_business_hours', { p_workspace_id: workspace.id, p_periods: periods });
      return error ? refuse(error, 'save hours') : done('hours');
    }
    case 'add_holiday': {
      const { error } = await supabase
        .from('holidays')
        .insert({ workspace_id: workspace.id, day: value.day, name: value.name });
      return error ? refuse(error, 'add holiday') : done('holiday');
    }
    case 'after_hours': {
      const { error } = await supabase.rpc('save_after_hours_reply', {
        p_workspace_id: workspace.id,
        p_canned_reply_id: value.canned_reply_id ?? undefined,
      });
      return error ? refuse(error, 'save after-hours reply') : done('after_hours');
    }
    case 'remove_holiday': {
      const { error } = await supabase.from('holidays').delete().eq('workspace_id', workspace.id).eq('day', value.day);
      return error ? refuse(error, 'remove holiday') : done('removed');
    }
    default: {
      const rows = PRIORITIES.map((priority) => ({
        priority,
        first_response_minutes: value[targetField(priority, 'first')],
        next_response_minutes: value[targetField(priority, 'next')],
        resolution_minutes: value[targetField(priority, 'resolution')],
        business_hours: value[targetField(priority, 'business')] === 'on',
      })).filter((r) => r.first_response_minutes || r.next_response_minutes || r.resolution_minutes);
      const { error } = await supabase.rpc('save_sla_targets', { p_workspace_id: workspace.id, p_targets: rows });
      return error ? refuse(error, 'save targets') : done('targets');
    }
  }
}
