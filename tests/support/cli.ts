// `npm run stack -- …` as a developer runs it, for tests of the command line.
import { spawn } from 'node:child_process';
import { PROJECT_DIR, STACK_CLI as CLI } from '@tend/supabase-local';
import { waitFor } from '../../scripts/lib/wait.ts';

export interface CliRun {
  child: ReturnType<typeof spawn>;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  stdout(): string;
  exit: Promise<number | null>;
}

export function run(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): CliRun {
  // One process (no tsx wrapper), so a signal reaches the CLI itself.
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: PROJECT_DIR,
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  });
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  let out = '';
  let stdout = '';
  child.stdout!.on('data', (c) => {
    out += c;
    stdout += c;
  });
  child.stderr!.on('data', (c) => (out += c));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, stdout: () => stdout, exit };
}

/** Until the CLI says it is ready or exits; the output is in the error when it does not get ready. */
export async function ready(cli: CliRun): Promise<'ready' | 'exited'> {
  const state = () => (/is ready/.test(cli.output()) ? 'ready' : cli.child.exitCode !== null ? 'exited' : undefined);
  try {
    return await waitFor('the stack CLI', async () => state(), 45_000);
  } catch {
    throw new Error(`stack CLI not ready within 45 s:\n${cli.output()}`);
  }
}

/** Runs a command to its end; resolves to its exit code and output. */
export async function runToEnd(args: string[], opts: Parameters<typeof run>[1] = {}) {
  const cli = run(args, opts);
  const code = await cli.exit;
  return { code, output: cli.output(), stdout: cli.stdout() };
}
