import { RemixBrowser } from '@remix-run/react';
import { StrictMode, startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { REQUEST_ID_META, RequestInfoContext } from './components/request-info.tsx';

// The request id of the document (error pages show it); the nonce is "" once the browser used it.
const requestId = document.querySelector<HTMLMetaElement>(`meta[name="${REQUEST_ID_META}"]`)?.content ?? '';
// Remix's first location takes its key from history.state (set by <ScrollRestoration/>'s script).
const documentLocationKey = (window.history.state as { key?: string } | null)?.key ?? 'default';

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <RequestInfoContext.Provider value={{ nonce: '', requestId, documentLocationKey }}>
        <RemixBrowser />
      </RequestInfoContext.Provider>
    </StrictMode>,
  );
});
