// sweep-attachments: the hourly job (cron.schedule in supabase/schemas/80_email.sql, through
// pg_net) that removes the files no message claims an hour after their upload — what a failed post
// left, or a client that uploads and never posts (docs/decisions/036-files-the-database-checks.md).
// Through the storage API, which removes the bytes with the row: batches of 1 000, up to 10 a run.
import { ATTACHMENTS_BUCKET } from '../_shared/attachment-rules.ts';
import { admin, isServiceRole, json } from '../_shared/platform.ts';

const BATCHES_PER_RUN = 10;

Deno.serve(async (req) => {
  if (!isServiceRole(req)) return json(401, { error: 'service role required' });
  let removed = 0;
  for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
    const { data: names, error } = await admin().rpc('unrecorded_attachment_objects');
    if (error) {
      console.error(`unrecorded_attachment_objects failed: ${error.message}`);
      return json(500, { error: error.message, removed });
    }
    if (!names?.length) break;
    const { data: gone, error: removeError } = await admin().storage.from(ATTACHMENTS_BUCKET).remove(names);
    if (removeError) {
      console.error(`removing unrecorded files failed: ${removeError.message}`);
      return json(500, { error: removeError.message, removed });
    }
    removed += gone?.length ?? 0;
    // Fewer than asked for: nothing more is waiting.
    if (names.length < 1000 || !gone?.length) break;
  }
  if (removed) console.log(`removed ${removed} unrecorded file(s)`);
  return json(200, { removed });
});
