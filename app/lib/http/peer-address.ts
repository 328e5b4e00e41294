// The client's socket address as server.ts hands it to the app: a request header it sets itself
// (after dropping any a client sent), trusted only when server.ts says it is the server.
export const PEER_ADDRESS_HEADER = 'x-tend-peer-address';
export const PEER_ADDRESS_ENV = 'TEND_PEER_ADDRESS';
