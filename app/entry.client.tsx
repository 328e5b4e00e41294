import { RemixBrowser } from '@remix-run/react';
import { StrictMode, startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { REQUEST_ID_META, RequestInfoContext } from './components/request-info.tsx';

// The request id of the document (error pages show it); the nonce is "" once the browser used it.
const requestId = document.querySelector<HTMLMetaElement>(`meta[name="${REQUEST_ID_META}"]`)?.content ?? '';

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <RequestInfoContext.Provider value={{ nonce: '', requestId }}>
        <RemixBrowser />
      </RequestInfoContext.Provider>
    </StrictMode>,
  );
});
