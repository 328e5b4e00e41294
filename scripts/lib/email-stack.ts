// A stack of this project (its migrations, seed and functions) for the email benches (bench:functions,
// bench:email): PostgREST calls as a seeded person, the customer's replies counted in the mail catcher,
// and a ticket of the seeded customer's to reply on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack } from '@tend/supabase-local';
import { accessToken } from './jwt.ts';

export const CUSTOMER = { id: 'c0000000-0000-4000-8000-000000000001', email: 'customer@example.test' };
export const AGENT = { id: 'a0000000-0000-4000-8000-000000000002', email: 'agent@acme.test' };

/**
 * `functionsEnv`: lines for the functions' env file; `log`: the stack's log lines (the functions' output among
 * them); `projectDir`: another checkout's project (its migrations and functions), for a baseline.
 */
export async function emailStack(
  name: string,
  opts: { functionsEnv?: string; log?: (line: string) => void; projectDir?: string } = {},
) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `tend-bench-${name}-`));
  const envFile = path.join(dir, 'functions.env');
  writeFileSync(envFile, `# bench\n${opts.functionsEnv ?? ''}`);
  const stack = await startStack({
    port: 0,
    dir: path.join(dir, 'data'),
    ephemeral: true,
    functionsEnvFile: envFile,
    log: opts.log ?? (() => undefined),
    projectDir: opts.projectDir,
  });
  const jwt = (who: { id: string; email: string }) => accessToken(stack.jwtSecret, { sub: who.id, email: who.email });
  const rpc = async (fn: string, token: string, body: unknown) => {
    const res = await fetch(`${stack.apiUrl}/rest/v1/rpc/${fn}`, {
      method: 'POST',
      headers: { apikey: stack.anonKey, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${fn}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  /** How many of the team's emails (Reply-To reply+…) reached the customer. */
  const mails = async () => {
    const q = encodeURIComponent(`to:${CUSTOMER.email} reply-to:reply+`);
    return (await (await fetch(`${stack.mailUrl}/api/v1/search?query=${q}`)).json()).messages_count as number;
  };
  const [ticket] = await rpc('create_ticket', await jwt(CUSTOMER), {
    p_workspace_slug: 'acme',
    p_subject: 'Bench',
    p_body: 'Timing the mail.',
  });
  return {
    stack,
    envFile,
    rpc,
    mails,
    ticketId: ticket.id as string,
    agent: await jwt(AGENT),
    stop: async () => {
      await stack.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
