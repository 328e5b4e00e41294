// The inbox and the ticket page each come from one SQL function that answers jsonb
// (docs/decisions/008-inbox-in-one-call.md). Generated types can only call that `Json`; the shape is
// the route's to declare, from the row types where it repeats them, and this is the one place it is read as such.
import type { Json } from '../supabase/database.types.ts';

/** A page function's answer, as the shape the route declares (the SQL builds it with jsonb_build_object). */
export function jsonPage<T>(json: Json | null): T {
  return json as unknown as T;
}
