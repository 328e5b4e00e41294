// @tend/supabase-local: a Docker-free local Supabase for a project's supabase/ folder (README.md).
// What other code may use (scripts, the app's tests); everything else in this package is its own
// business. Its own tests reach a few more parts through `@tend/supabase-local/testing`.
import { fileURLToPath } from 'node:url';

export {
  DEFAULT_PORT,
  freeBasePort,
  freePort,
  isBasePort,
  PortInUseError,
  PROJECT_DIR,
  readStatus,
  resetStack,
  StackRunningError,
  startStack,
  type Stack,
  type StackInfo,
  type StackOptions,
  type StatusFile,
} from './stack.ts';
/** The CLI (`npm run stack -- …`), to run a stack in a process of its own: `node STACK_CLI start` (launch.mjs). */
export const STACK_CLI = fileURLToPath(new URL('./launch.mjs', import.meta.url));
export {
  DEFAULT_ANON_KEY,
  DEFAULT_JWT_SECRET,
  DEFAULT_PUBLISHABLE_KEY,
  DEFAULT_SECRET_KEY,
  DEFAULT_SERVICE_ROLE_KEY,
  defaultKeys,
  type StackKeys,
} from './keys.ts';
export { DEFAULT_SIGNING_KEY, type Jwk } from './signing-keys.ts';
export { loadConfig, type ProjectConfig } from './config.ts';
export { MigrationError } from './migrate.ts';
/** The cluster's superuser (hosted's `supabase_admin`), for test and bench set-up only. */
export { SUPERUSER } from './postgres.ts';
export { RESTART_DELAYS_MS } from './supervisor.ts';
export { trustFromEnv, type TrustOptions } from './trust.ts';
export type { RealtimeService } from './realtime/index.ts';
/** Child processes managed as the stack manages its own (a stack or an app server in a process of its own). */
export { isAlive, type ManagedChild, spawnManaged, stopChild } from './process.ts';
/** The mail catcher alone, without a stack. */
export { type RunningMail, startMail } from './mail/index.ts';
/** `db diff` and `gen types`, as the CLI runs them. */
export { diffSchemas, generateTypes, TYPES_FILE } from './schema-diff.ts';
