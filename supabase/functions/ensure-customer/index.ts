// ensure-customer: an agent starting a conversation with an address (New conversation,
// docs/decisions/057-new-conversations-and-forwards.md) needs the customer's account first, which only
// the platform may make. The caller is a signed-in member of the workspace (their JWT, checked by the
// platform, verify_jwt); the account is made as inbound-email makes one for an unknown sender.
// POST {"workspace_id", "email", "name"?} → 200 {"ok": true}; 400 a bad address, 403 not a member.
import { ensureUser } from '../_shared/customers.ts';
import { admin, callerClaims, json } from '../_shared/platform.ts';

// The same shape the database's forward_ticket and the app's forms take.
const EMAIL = /^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/;

Deno.serve(async (req) => {
  if (req.method !== 'POST') return json(405, { error: 'method not allowed' });
  const caller = callerClaims(req);
  if (caller?.role !== 'authenticated' || !caller.sub) return json(401, { error: 'sign in first' });
  let body: { workspace_id?: unknown; email?: unknown; name?: unknown };
  try {
    body = await req.json();
  } catch {
    return json(400, { error: 'invalid JSON' });
  }
  const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
  if (!EMAIL.test(email) || email.length > 254 || typeof body.workspace_id !== 'string')
    return json(400, { error: 'expected {"workspace_id", "email"} with a valid address' });
  const { data: member, error } = await admin()
    .from('memberships')
    .select('user_id')
    .eq('workspace_id', body.workspace_id)
    .eq('user_id', caller.sub)
    .maybeSingle();
  if (error) return json(400, { error: error.message });
  if (!member) return json(403, { error: 'not a member of this workspace' });
  await ensureUser(email, typeof body.name === 'string' && body.name.trim() ? body.name.trim() : undefined);
  return json(200, { ok: true });
});
