// A local stack per test file: fixture project in a temp dir, free ports, fast settings.
import { cpSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { ProjectConfig } from '../../supabase/local/config.ts';
import { PROJECT_DIR, startStack, type Stack } from '../../supabase/local/stack.ts';
import { tempProject, type TempProject } from './project.ts';

export interface TestStack extends Stack {
  project: TempProject;
  /** SQL as the cluster superuser, for arranging what a test needs (never for asserting through RLS). */
  sql(text: string, params?: unknown[]): Promise<pg.QueryResult>;
  teardown(): Promise<void>;
}

export async function startTestStack(opts: { fixture?: string; configure?: (c: ProjectConfig) => void } = {}): Promise<TestStack> {
  const project = tempProject(opts.fixture);
  // Tend's own email templates, so tests read the mails users get (config.toml points at them).
  cpSync(path.join(PROJECT_DIR, 'supabase', 'templates'), path.join(project.projectDir, 'supabase', 'templates'), { recursive: true });
  const stack = await startStack({
    port: 0,
    dir: project.dataDir,
    projectDir: project.projectDir,
    ephemeral: true,
    configure: opts.configure,
    log: () => undefined,
  });
  const pool = new pg.Pool({ connectionString: stack.dbUrl.replace('//postgres:', '//supabase_admin:'), max: 2 });
  return {
    ...stack,
    project,
    sql: (text, params) => pool.query(text, params),
    teardown: async () => {
      await pool.end();
      await stack.stop();
      project.remove();
    },
  };
}
