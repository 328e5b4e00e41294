// verify-sender-domain: an admin of a workspace asks (with their own JWT, verify_jwt) whether the domain
// of the workspace's sender address is ready to send from: the workspace's token at _tend.<domain>,
// one SPF record (with SENDER_SPF_INCLUDE when set), a DKIM record at <selector>._domainkey.<domain>.
// All three found: the domain is recorded as verified for this workspace (service role; nobody else may
// write it), and notify sends from the address. SENDER_DOMAIN_CHECK=trust (the default when the project
// is on this machine, which has no DNS to ask) records it without asking.
// docs/decisions/046-sender-and-branding.md
import { createClient } from '../_shared/deps.ts';
import { admin, callerClaims, json } from '../_shared/platform.ts';
import { checkSenderDomain, dkimName, domainOf, ownershipName } from '../_shared/sender-domain.ts';

const env = (name: string) => Deno.env.get(name) || undefined;

/** 'dns', or 'trust' where DNS can't be asked: the project on a loopback address (the local stack). */
function mode(): 'dns' | 'trust' {
  const set = env('SENDER_DOMAIN_CHECK');
  if (set === 'dns' || set === 'trust') return set;
  const host = new URL(env('SUPABASE_URL') ?? 'http://localhost').hostname;
  return /^(localhost|127\.|\[::1\]|::1|host\.docker\.internal|kong)/.test(host) ? 'trust' : 'dns';
}

async function txt(name: string): Promise<string[]> {
  try {
    return (await Deno.resolveDns(name, 'TXT')).map((parts) => parts.join(''));
  } catch {
    return []; // NXDOMAIN, no answer: not there
  }
}

async function cname(name: string): Promise<string[]> {
  try {
    return await Deno.resolveDns(name, 'CNAME');
  } catch {
    return [];
  }
}

Deno.serve(async (req) => {
  if (req.method !== 'POST') return json(405, { error: 'method not allowed' });
  let workspaceId: unknown;
  try {
    workspaceId = (await req.json()).workspace_id;
  } catch {
    return json(400, { error: 'invalid JSON' });
  }
  if (typeof workspaceId !== 'string' || !/^[0-9a-f-]{36}$/i.test(workspaceId))
    return json(400, { error: 'expected {"workspace_id"}' });
  // Whoever calls must be an admin of it: asked as them, row-level security answering.
  const asCaller = createClient(env('SUPABASE_URL')!, env('SUPABASE_ANON_KEY')!, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers: { Authorization: req.headers.get('authorization') ?? '' } },
  });
  const userId = callerClaims(req)?.sub;
  if (!userId) return json(401, { error: 'sign in first' });
  const { data: membership } = await asCaller
    .from('memberships')
    .select('role')
    .eq('workspace_id', workspaceId)
    .eq('user_id', userId)
    .maybeSingle();
  if (membership?.role !== 'admin') return json(403, { error: 'admins only' });

  const db = admin();
  const { data: settings, error } = await db
    .from('workspace_email_settings')
    .select('sender_address, dkim_selector, verification_token')
    .eq('workspace_id', workspaceId)
    .maybeSingle();
  if (error) throw error;
  const domain = domainOf(settings?.sender_address);
  if (!settings || !domain) return json(409, { error: 'no sender address' });

  const how = mode();
  const checks =
    how === 'trust'
      ? { ownership: true, spf: true, dkim: true }
      : checkSenderDomain(
          {
            ownership: await txt(ownershipName(domain)),
            spf: await txt(domain),
            dkimTxt: settings.dkim_selector ? await txt(dkimName(domain, settings.dkim_selector)) : [],
            dkimCname: settings.dkim_selector ? await cname(dkimName(domain, settings.dkim_selector)) : [],
          },
          settings.verification_token,
          env('SENDER_SPF_INCLUDE'),
        );
  const verified = checks.ownership && checks.spf && checks.dkim;
  const { error: e2 } = await db
    .from('workspace_email_settings')
    .update(
      verified
        ? { verified_domain: domain, verified_at: new Date().toISOString() }
        : { verified_domain: null, verified_at: null },
    )
    .eq('workspace_id', workspaceId)
    // Only if the address is still at this domain (an admin may have changed it meanwhile).
    .ilike('sender_address', `%@${domain}`);
  if (e2) throw e2;
  return json(200, { domain, verified, mode: how, checks });
});
