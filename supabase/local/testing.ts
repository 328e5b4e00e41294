// @tend/supabase-local/testing: the parts of the package its own tests reach into — pure functions
// and single components, tried alone (tests/unit, and a few integration tests of the stack's
// internals). Nothing else imports these: other code uses index.ts.
export { ephemeralLow } from './stack.ts';
export { clusterDir, installCopy, runAsUser } from './postgres.ts';
export { startPostgrest } from './postgrest.ts';
export { supervise } from './supervisor.ts';
export { clientAddress, hostAllowed, parseSbForwardedFor } from './trust.ts';
export { parseDuration, parseSize } from './config.ts';
export { unsupportedKeys } from './config-keys.ts';
export { explainMissingExtension } from './extensions.ts';
export { answerEnd } from './pg-dump/index.ts';
export { formatVersion, migrationTable, pendingVersions, versionAt } from './commands/migration.ts';
export { parseOverrides, statusValues, toDotenv } from './commands/status.ts';
export { fileFailed, readTap, report } from './commands/test-db.ts';
export { splitStatements } from './migrate.ts';
export { parseEnvFile, userSecrets } from './functions/project.ts';
export { PgoutputDecoder } from './realtime/pgoutput.ts';
export { RateCounter } from './realtime/limits.ts';
export { decode, encode, encodeUserBroadcast, negotiate } from './realtime/serializer.ts';
export { paramsToLog, parseSubscription, subscriptionId, surelyFiltersOut } from './realtime/postgres-changes.ts';
export { cropOrigin, fromSegments, geometry, parseTransform, segments } from './storage/transform.ts';
export { decodeCursor, encodeCursor } from './storage/list.ts';
export {
  allParts,
  base64Size,
  decodeQuotedPrintable,
  MimeError,
  partBody,
  scanMessage,
  skeleton,
} from './mail/mime.ts';
