// Who is on a ticket's page, from what the server vouches for (docs/decisions/037-presence-the-server-vouches-for.md).
// Realtime presence is keyed by whatever the client says, so the key (a user id) alone proves nothing.
// The server gives each tracked entry its own presence_ref, which no client chooses; the database's
// `viewer` broadcast says which user announced a ref (announce_ticket_viewer, with their auth.uid()).
// An entry counts only when its key is a user the database vouched for that very ref.

/** realtime-js's presenceState(): key → the entries tracked under it. */
export type PresenceEntries = Record<string, { presence_ref: string }[]>;

/** presence_ref → the users the database said announced it (a forger may announce another's ref too). */
export type Vouches = Map<string, Set<string>>;

/** Records a `viewer` broadcast from the database. */
export function addVouch(vouches: Vouches, ref: string, userId: string): void {
  const users = vouches.get(ref);
  if (users) users.add(userId);
  else vouches.set(ref, new Set([userId]));
}

/** The users viewing besides `me`: keys with an entry whose ref the database vouched was that key's. */
export function vouchedViewers(entries: PresenceEntries, vouches: Vouches, me: string): string[] {
  return Object.entries(entries)
    .filter(([key, list]) => key !== me && list.some((e) => vouches.get(e.presence_ref)?.has(key)))
    .map(([key]) => key);
}
