// Per-response values the server renders with: the CSP nonce and the request id. The browser
// gets the request id back from a meta tag (entry.client.tsx); the nonce is hidden from scripts
// by the browser once used, so the client renders it as "".
import { createContext, useContext } from 'react';

export interface RequestInfo {
  nonce: string;
  requestId: string;
  /** In the browser: the key of the location the document was rendered for (its request's id). */
  documentLocationKey?: string;
}

export const RequestInfoContext = createContext<RequestInfo>({ nonce: '', requestId: '' });

export const REQUEST_ID_META = 'tend-request-id';

export function useNonce(): string {
  return useContext(RequestInfoContext).nonce;
}

export function useRequestId(): string {
  return useContext(RequestInfoContext).requestId;
}

/**
 * The request id of the page at `locationKey`: the document's, or '' after a client-side
 * navigation, whose request this page doesn't know.
 */
export function useRequestIdAt(locationKey: string): string {
  const { requestId, documentLocationKey } = useContext(RequestInfoContext);
  return documentLocationKey === undefined || documentLocationKey === locationKey ? requestId : '';
}
