// The Supabase CLI's published local defaults (docs/reference/auth.md §7): public, for local use only.
// Using the same values means docs and tools written for `supabase start` work unchanged.
export const DEFAULT_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
export const DEFAULT_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
export const DEFAULT_SERVICE_ROLE_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU';
// New-style opaque keys; the gateway maps them to the JWTs above (CLI start.go, docs/reference/storage-functions.md §0.3).
export const DEFAULT_PUBLISHABLE_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
export const DEFAULT_SECRET_KEY = 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz';

export interface StackKeys {
  jwtSecret: string;
  anonKey: string;
  serviceRoleKey: string;
  publishableKey: string;
  secretKey: string;
}

export const defaultKeys: StackKeys = {
  jwtSecret: DEFAULT_JWT_SECRET,
  anonKey: DEFAULT_ANON_KEY,
  serviceRoleKey: DEFAULT_SERVICE_ROLE_KEY,
  publishableKey: DEFAULT_PUBLISHABLE_KEY,
  secretKey: DEFAULT_SECRET_KEY,
};
