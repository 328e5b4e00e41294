// Who is on a ticket's page, from what the server vouches for (docs/decisions/037-presence-the-server-vouches-for.md).
// Realtime presence carries whatever a client says (its key, its payload), so neither names anyone.
// The server gives each tracked entry a presence_ref no client chooses, and the database's `viewer`
// broadcast says which user announced a ref (announce_ticket_viewer, with their auth.uid()); a page
// announces only its own entry. So a user is shown while an entry they announced is present: a
// forger who announces another's entry is shown as the forger.

/** realtime-js's presenceState(): key → the entries tracked under it. */
export type PresenceEntries = Record<string, { presence_ref: string }[]>;

/** The database's `viewer` broadcasts seen: [presence_ref, user id]. */
export type Vouches = [string, string][];

/** The users viewing besides `me`: each who announced an entry that is present. */
export function vouchedViewers(entries: PresenceEntries, vouches: Vouches, me: string): string[] {
  const present = new Set(Object.values(entries).flatMap((list) => list.map((e) => e.presence_ref)));
  return [...new Set(vouches.filter(([ref, user]) => user !== me && present.has(ref)).map(([, user]) => user))];
}
