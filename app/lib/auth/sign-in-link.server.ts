// Where the link in a sign-in email leads: /auth/confirm on the app that sent it (this request's
// public origin, or APP_ORIGIN), with the page to go to afterwards as `next`. Auth hands it to the
// templates as {{ .RedirectTo }} (supabase/templates/*.html), once it is on the project's redirect
// allow list (loopback always is; README "Deploying"). A Host the app does not answer (a forged
// one) never makes it into a link: then the link names localhost on this request's port.
import { env } from '../env.server.ts';
import { allowedHosts, isAllowedHost } from '../http/allowed-hosts.ts';
import { publicOrigin } from '../http/request-info.server.ts';
import { safeRedirect } from '../http/safe-redirect.ts';

const hosts = allowedHosts(env);

export function signInLink(request: Request, next: string): string {
  const url = new URL(request.url);
  const origin =
    env.APP_ORIGIN || isAllowedHost(url.host, hosts) ? publicOrigin(request) : `http://localhost:${url.port || 80}`;
  return `${origin}/auth/confirm?${new URLSearchParams({ next: safeRedirect(next) })}`;
}
