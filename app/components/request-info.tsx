// Per-response values the server renders with: the CSP nonce and the request id. The browser
// gets the request id back from a meta tag (entry.client.tsx); the nonce is hidden from scripts
// by the browser once used, so the client renders it as "".
import { createContext, useContext } from 'react';

export interface RequestInfo {
  nonce: string;
  requestId: string;
}

export const RequestInfoContext = createContext<RequestInfo>({ nonce: '', requestId: '' });

export const REQUEST_ID_META = 'tend-request-id';

export function useNonce(): string {
  return useContext(RequestInfoContext).nonce;
}

export function useRequestId(): string {
  return useContext(RequestInfoContext).requestId;
}
