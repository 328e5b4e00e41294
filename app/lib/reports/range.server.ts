// The reports' range (/w/:slug/reports): a preset (the last 7, 30 or 90 days up to today in the
// workspace's time zone, which workspace_report works out) or custom days `from`–`to` from the GET form,
// checked with zod through Conform like every other form, so a refused range comes back at its field
// with what was typed.
import type { SubmissionResult } from '@conform-to/dom';
import { parseWithZod } from '@conform-to/zod/v4';
import { z } from 'zod';
import { REPORT_DEFAULT_DAYS, REPORT_MAX_DAYS, REPORT_RANGES_DAYS } from '../constants.ts';
import { errorMessage } from '../errors/catalogue.server.ts';

const DAY_MS = 86_400_000;
const dateMessage = { error: errorMessage('date_invalid') };

/** A calendar date as YYYY-MM-DD that exists (no 31 February). */
const DateSchema = z.iso.date(dateMessage);

export const ReportRangeSchema = z
  .object({ from: DateSchema, to: DateSchema })
  .refine(({ from, to }) => from <= to && daysBetween(from, to) < REPORT_MAX_DAYS, {
    error: errorMessage('date_range_invalid'),
    path: ['to'],
  });

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS);
}

export type ReportPreset = (typeof REPORT_RANGES_DAYS)[number];

export type ReportRange =
  | { ok: true; preset: ReportPreset; from?: undefined; to?: undefined }
  | { ok: true; preset: null; from: string; to: string }
  | { ok: false; reply: SubmissionResult<string[]> };

/** The range a URL asks for: custom when it has `from` or `to`, else `range` (7, 30, 90; 30 by default). */
export function reportRange(params: URLSearchParams): ReportRange {
  if (params.has('from') || params.has('to')) {
    const submission = parseWithZod(params, { schema: ReportRangeSchema });
    if (submission.status !== 'success') return { ok: false, reply: submission.reply() };
    return { ok: true, preset: null, ...submission.value };
  }
  const asked = Number(params.get('range'));
  return { ok: true, preset: (REPORT_RANGES_DAYS.find((d) => d === asked) ?? REPORT_DEFAULT_DAYS) as ReportPreset };
}

/** workspace_report's arguments for a range (a preset's days end today in the workspace's zone). */
export function reportArgs(slug: string, range: Extract<ReportRange, { ok: true }>) {
  return range.preset === null
    ? { p_slug: slug, p_from: range.from, p_to: range.to }
    : { p_slug: slug, p_days: range.preset };
}
