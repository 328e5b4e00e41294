import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import type { ShouldRevalidateFunction } from '@remix-run/react';
import {
  Links,
  LiveReload,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useMatches,
  useRouteLoaderData,
} from '@remix-run/react';
import type { ReactNode } from 'react';
import { GeneralErrorBoundary } from './components/error-boundary.tsx';
import { isOffline } from './components/forms.tsx';
import { keepsItself } from './components/live/kept-page.ts';
import { islandScripts } from './components/islands.server.tsx';
import { REQUEST_ID_META, useNonce, useRequestId } from './components/request-info.tsx';
import { SiteHeader } from './components/site-header.tsx';
import { getOptionalSession } from './lib/auth/session.server.ts';
import { TIME_ZONE_SCRIPT, viewerState } from './lib/helpdesk/viewer-zone.server.ts';
import { browserEnv } from './lib/env.server.ts';
import { dataWithSession } from './lib/http/responses.server.ts';
import { sharedConstant } from './lib/http/shared-documents.server.ts';
import stylesheet from './styles/app.css';

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: stylesheet },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
];

export const meta: MetaFunction = () => [
  { title: 'Tend' },
  { name: 'description', content: 'A shared support inbox for small teams.' },
];

// A signed-out reader's root data: one object, so a page the same for every such reader is rendered once
// (app/lib/http/shared-documents.server.ts).
let signedOut: { user: null; unread: null; ENV: ReturnType<typeof browserEnv> } | undefined;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const session = await getOptionalSession(request);
  if (!session)
    return dataWithSession(request, (signedOut ??= sharedConstant({ user: null, unread: null, ENV: browserEnv() })));
  // The bell's number (null: no bell, the user is in no workspace; a failed count shows none), in the call
  // the page's loader shares for the viewer's time zone (viewerState). Asked here, not through a server
  // module of its own: each one a route imports costs its bundle a stub chunk (006).
  const { unread } = await viewerState(context, session.supabase);
  // The browser gets the public Supabase URL and anon key only (for realtime).
  return dataWithSession(request, { user: session.user, unread, ENV: browserEnv() });
}

// A live page's revalidation (same URL, no form) is about the page's data; who is signed in and the
// public environment don't change with it, so the root's loader sits it out. Nor does it load after
// a form the network failed to send (forms.tsx): it would fail the same way, and show the error page.
// Nor on the way to a page that keeps itself (kept-page.ts), or for a form sent there: a reply or a field
// changes neither who is signed in nor the bell, which follows its notifications live (a sign-in that
// leads to such a page comes from another page, and loads).
export const shouldRevalidate: ShouldRevalidateFunction = ({
  currentUrl,
  nextUrl,
  formMethod,
  actionResult,
  defaultShouldRevalidate,
}) =>
  !isOffline(actionResult) &&
  !(keepsItself(nextUrl.pathname) && (!formMethod || currentUrl.pathname === nextUrl.pathname)) &&
  (formMethod || currentUrl.href !== nextUrl.href ? defaultShouldRevalidate : false);

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  const requestId = useRequestId();
  const root = useRouteLoaderData<typeof loader>('root');
  const matches = useMatches();
  // An island page (its route's handle names one) loads only its island, not Remix's runtime. Only
  // the server decides: in a browser Remix's runtime is running already (a client-side navigation
  // into an island route renders it like any other page), and islands.server.tsx isn't there. No nonce:
  // a document the same for every reader (entry.server.tsx), which loads its island by a hashed script.
  const island = typeof document === 'undefined' ? islandScripts(matches, nonce || null) : null;
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {requestId ? <meta name={REQUEST_ID_META} content={requestId} /> : null}
        <Meta />
        <Links />
        {root?.user ? (
          // The browser's time zone, for the next page the server renders (viewer-zone.server.ts). Empty
          // in the browser's render (a .server module is empty there): hydration keeps the server's script.
          // biome-ignore lint/security/noDangerouslySetInnerHtml: a constant of ours, no user text.
          <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: TIME_ZONE_SCRIPT ?? '' }} />
        ) : null}
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <SiteHeader user={root?.user ?? null} unread={root?.unread ?? null} env={root?.ENV ?? null} />
        <main id="main" className="page">
          {children}
        </main>
        {island ?? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
            {process.env.NODE_ENV === 'development' ? <LiveReload nonce={nonce} /> : null}
          </>
        )}
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
