// close-solved: the hourly job (cron.schedule in the email migration, through pg_net) that closes
// requests solved more than 7 days ago. close_solved_tickets does the work and the history (an event
// with no actor: the platform).
import { admin, isServiceRole, json } from '../_shared/platform.ts';

Deno.serve(async (req) => {
  if (!isServiceRole(req)) return json(401, { error: 'service role required' });
  const { data, error } = await admin().rpc('close_solved_tickets');
  if (error) {
    console.error(`close_solved_tickets failed: ${error.message}`);
    return json(500, { error: error.message });
  }
  if (data) console.log(`closed ${data} solved ticket(s)`);
  return json(200, { closed: data });
});
