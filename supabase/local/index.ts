// @tend/supabase-local: a Docker-free local Supabase for a project's supabase/ folder (README.md).
// What other code may use; everything else in this package is its own business.
export {
  DEFAULT_PORT,
  PortInUseError,
  readStatus,
  resetStack,
  StackRunningError,
  startStack,
  type Stack,
  type StackInfo,
  type StackOptions,
} from './stack.ts';
export {
  DEFAULT_ANON_KEY,
  DEFAULT_JWT_SECRET,
  DEFAULT_PUBLISHABLE_KEY,
  DEFAULT_SECRET_KEY,
  DEFAULT_SERVICE_ROLE_KEY,
  type StackKeys,
} from './keys.ts';
export { loadConfig, type ProjectConfig } from './config.ts';
export { MigrationError } from './migrate.ts';
export { RESTART_DELAYS_MS } from './supervisor.ts';
export { trustFromEnv, type TrustOptions } from './trust.ts';
