// sweep-attachments: the hourly job (cron.schedule in supabase/schemas/80_email.sql, through
// pg_net) that removes, an hour after their upload, the files no message claims — what a failed post
// left, or a client that uploads and never posts (docs/decisions/036-files-the-database-checks.md) —
// and the help center's images no article shows — a deleted article's, one taken out of the text
// (unclaimed_help_images, supabase/schemas/65_help_center.sql). Through the storage API, which removes
// the bytes with the row: batches of 1 000, up to 10 a run for each bucket.
import { ATTACHMENTS_BUCKET } from '../_shared/attachment-rules.ts';
import { admin, isServiceRole, json } from '../_shared/platform.ts';

const BATCHES_PER_RUN = 10;

/** Each bucket swept, with the database's list of what nothing claims in it. */
const SWEEPS = [
  { bucket: ATTACHMENTS_BUCKET, list: 'unrecorded_attachment_objects' },
  { bucket: 'help', list: 'unclaimed_help_images' },
] as const;

Deno.serve(async (req) => {
  if (!isServiceRole(req)) return json(401, { error: 'service role required' });
  const removed: Record<string, number> = {};
  for (const { bucket, list } of SWEEPS) {
    removed[bucket] = 0;
    for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
      const { data: names, error } = await admin().rpc(list);
      if (error) {
        console.error(`${list} failed: ${error.message}`);
        return json(500, { error: error.message, removed });
      }
      if (!names?.length) break;
      const { data: gone, error: removeError } = await admin().storage.from(bucket).remove(names);
      if (removeError) {
        console.error(`removing unclaimed files of ${bucket} failed: ${removeError.message}`);
        return json(500, { error: removeError.message, removed });
      }
      removed[bucket] += gone?.length ?? 0;
      // Fewer than asked for: nothing more is waiting.
      if (names.length < 1000 || !gone?.length) break;
    }
    if (removed[bucket]) console.log(`removed ${removed[bucket]} unclaimed file(s) of ${bucket}`);
  }
  return json(200, { removed });
});
