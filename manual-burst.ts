// Scratch (not committed): bursts against a running stack, one line per second with what answered.
import { readFileSync } from 'node:fs';
const info = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
const svc = { apikey: info.serviceRoleKey, authorization: `Bearer ${info.serviceRoleKey}` };
const counts = new Map<string, number>();
const bump = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
const body = Buffer.alloc(150 * 1024, 7);
let n = 0;
const loop = async (name: string, f: () => Promise<Response>) => {
  for (;;) {
    try {
      const r = await f();
      const t = await r.text();
      bump(`${name} ${r.status}${r.status >= 300 ? ` ${t.slice(0, 90)}` : ''}`);
      if (r.status >= 300) await new Promise((r) => setTimeout(r, 100));
    } catch (e) {
      bump(`${name} ERR ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
};
for (let c = 0; c < 8; c++)
  void loop('upload', () => fetch(`${info.apiUrl}/storage/v1/object/attachments/manual/${c}-${++n}.png`, { method: 'POST', headers: { ...svc, 'content-type': 'image/png' }, body }));
void loop('rest', () => fetch(`${info.apiUrl}/rest/v1/workspaces?select=id&limit=1`, { headers: svc }));
void loop('auth', () => fetch(`${info.apiUrl}/auth/v1/admin/users?per_page=1`, { headers: svc }));
void loop('fn', () => fetch(`${info.apiUrl}/functions/v1/notify`, { method: 'POST', headers: { ...svc, 'content-type': 'application/json' }, body: '{"type":"message","message_id":"00000000-0000-0000-0000-000000000000"}' }));
setInterval(() => {
  console.log(new Date().toISOString().slice(11, 19), JSON.stringify(Object.fromEntries(counts)));
  counts.clear();
}, 1000);
