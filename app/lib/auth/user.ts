/** The signed-in user as pages see it (built from verified JWT claims in session.server.ts). */
export interface SessionUser {
  id: string;
  email: string;
  displayName: string | null;
}
