// One port for every service, standing in for Kong: apikey check, key → JWT mapping, CORS,
// prefix routing and the websocket upgrade. Routes as in the CLI's kong.yml.
import http, { type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { signer } from '../auth/jwt.ts';
import { sendJson } from '../http.ts';
import type { StackKeys } from '../keys.ts';
import type { Service } from '../service.ts';
import type { Jwk } from '../signing-keys.ts';
import { clientAddress, hostAllowed, MISDIRECTED, type TrustOptions } from '../trust.ts';

// Headers supabase-js sends (Kong cors plugin on every route); exposed ones it reads back.
const ALLOW_HEADERS = [
  'apikey',
  'authorization',
  'x-client-info',
  'content-type',
  'prefer',
  'range',
  'accept-profile',
  'content-profile',
  'x-upsert',
  'x-supabase-api-version',
  'accept',
  'cache-control',
  'x-metadata',
  'x-client-ip',
  'x-jwt-aud',
  'x-use-cookie',
  'tus-resumable',
  'upload-length',
  'upload-metadata',
  'upload-offset',
  'traceparent',
].join(', ');
const EXPOSE_HEADERS = [
  'content-range',
  'content-profile',
  'x-supabase-api-version',
  'x-total-count',
  'link',
  'x-sb-error-code',
  'content-location',
  'location',
  'preference-applied',
].join(', ');
const ALLOW_METHODS = 'GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS';

const SERVICE_NAMES = ['auth', 'rest', 'storage', 'realtime', 'functions'] as const;
type ServiceName = (typeof SERVICE_NAMES)[number];

function corsHeaders(req: IncomingMessage): http.OutgoingHttpHeaders {
  return {
    'access-control-allow-origin': req.headers.origin ?? '*',
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': EXPOSE_HEADERS,
    vary: 'Origin',
  };
}

/** Paths reachable without an apikey: email links and the URLs browsers open directly. */
function isOpenPath(service: ServiceName, path: string): boolean {
  const p = path.split('?')[0];
  if (service === 'auth') return /^\/(verify|callback|authorize|\.well-known\/jwks\.json|health)(\/|$)/.test(p);
  if (service === 'storage') return /^\/(object\/(public|sign|upload\/sign)|render\/image\/(public|sign))\//.test(p);
  if (service === 'functions') return true; // the functions runtime checks the JWT per verify_jwt
  return false;
}

export interface Gateway {
  port: number;
  server: http.Server;
  mount(service: Service): void;
  stop(): Promise<void>;
}

export async function startGateway(opts: {
  port: number;
  keys: StackKeys;
  signingKeys: Jwk[];
  trust: TrustOptions;
}): Promise<Gateway> {
  const services = new Map<ServiceName, Service>();
  const { keys } = opts;
  const roleKeys = new Map([
    [keys.anonKey, keys.anonKey],
    [keys.serviceRoleKey, keys.serviceRoleKey],
    [keys.publishableKey, keys.anonKey],
    [keys.secretKey, keys.serviceRoleKey],
  ]);
  const tokens = signer(keys.jwtSecret, opts.signingKeys);
  const verified = new Map<string, boolean>();

  /**
   * The JWT an apikey stands for. Besides the keys this start printed, any JWT the project's keys
   * sign is a key: the CLI derives new ones from `signing_keys_path` at every start (valid ten
   * years), and an `.env` written by an earlier `status` must keep working.
   */
  async function keyJwt(apikey: string): Promise<string | undefined> {
    const known = roleKeys.get(apikey);
    if (known || apikey.split('.').length !== 3) return known;
    let ok = verified.get(apikey);
    if (ok === undefined) {
      ok = await tokens.verify(apikey).then(
        (claims) => typeof claims.role === 'string',
        () => false,
      );
      if (verified.size > 1000) verified.clear();
      verified.set(apikey, ok);
    }
    return ok ? apikey : undefined;
  }

  /** Kong key-auth + request-transformer: validate the key and default Authorization to its JWT. */
  async function authorize(
    req: IncomingMessage,
    url: URL,
    service: ServiceName,
    path: string,
  ): Promise<{ status: number; body: object } | null> {
    const apikey = (req.headers.apikey as string | undefined) ?? url.searchParams.get('apikey') ?? undefined;
    const open = isOpenPath(service, path);
    if (!apikey && !open)
      return {
        status: 401,
        body: { message: 'No API key found in request', hint: 'No `apikey` request header or url param was found.' },
      };
    const jwt = apikey ? await keyJwt(apikey) : undefined;
    if (apikey && !jwt && !open)
      return {
        status: 401,
        body: { message: 'Invalid API key', hint: 'Double check your Supabase `anon` or `service_role` API key.' },
      };
    // IP address forwarding is for servers holding the secret key; from anyone else it is dropped.
    if (apikey !== keys.secretKey) delete req.headers['sb-forwarded-for'];
    // CLI start.go BearerToken: keep a non-"Bearer sb_" Authorization, else the key's JWT.
    const auth = req.headers.authorization;
    if (!auth || /^Bearer sb_/i.test(auth)) {
      if (jwt) req.headers.authorization = `Bearer ${jwt}`;
      else if (auth) delete req.headers.authorization;
    }
    return null;
  }

  function route(rawUrl: string): { service: ServiceName; path: string } | null {
    const m = /^\/(auth|rest|storage|realtime|functions)\/v1(\/.*)?$/.exec(rawUrl.split('?')[0]);
    if (!m) return null;
    const query = rawUrl.includes('?') ? rawUrl.slice(rawUrl.indexOf('?')) : '';
    return { service: m[1] as ServiceName, path: (m[2] ?? '/') + query };
  }

  /**
   * Before anything else: refuse a Host that isn't ours (a DNS-rebinding page), then decide the
   * client's address from the socket, whatever the client says (Kong: X-Forwarded-For, X-Real-IP).
   */
  function admit(req: IncomingMessage): string | null {
    if (!hostAllowed(req.headers.host, opts.trust.allowedHosts)) return MISDIRECTED.message(req.headers.host);
    const forwarded = req.headers['x-forwarded-for'];
    const ip = clientAddress(
      req.socket.remoteAddress,
      Array.isArray(forwarded) ? forwarded.join(',') : forwarded,
      opts.trust.trustedProxies,
    );
    req.headers['x-forwarded-for'] = ip;
    req.headers['x-real-ip'] = ip;
    return null;
  }

  const server = http.createServer(async (req, res) => {
    try {
      const misdirected = admit(req);
      if (misdirected) return sendJson(res, MISDIRECTED.status, { message: misdirected });
      // Functions answer CORS themselves, preflights included, as on hosted (reference B2, functions/cors guide).
      const ownCors = /^\/functions\/v1(\/|\?|$)/.test(req.url ?? '');
      if (!ownCors) for (const [k, v] of Object.entries(corsHeaders(req))) res.setHeader(k, v as string);
      if (req.method === 'OPTIONS' && !ownCors) {
        res.writeHead(200, {
          'access-control-allow-methods': ALLOW_METHODS,
          'access-control-allow-headers': req.headers['access-control-request-headers']
            ? `${ALLOW_HEADERS}, ${req.headers['access-control-request-headers']}`
            : ALLOW_HEADERS,
          'access-control-max-age': '3600',
          'content-length': '0',
        });
        return res.end();
      }
      const url = new URL(req.url ?? '/', 'http://gateway');
      if (url.pathname === '/health') return sendJson(res, 200, { status: 'ok' });
      const r = route(req.url ?? '/');
      if (!r) return sendJson(res, 404, { message: 'no Route matched with those values' }); // Kong's wording
      const denied = await authorize(req, url, r.service, r.path);
      if (denied) return sendJson(res, denied.status, denied.body);
      const svc = services.get(r.service);
      if (!svc) return sendJson(res, 503, { message: `${r.service} is not running` });
      await svc.handle(req, res, r.path);
    } catch (err) {
      console.error('[gateway]', err);
      if (!res.headersSent)
        sendJson(res, 502, { message: 'An invalid response was received from the upstream server' });
      else res.destroy();
    }
  });
  server.keepAliveTimeout = 65_000;

  server.on('upgrade', async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const r = route(req.url ?? '/');
    const reject = (status: number, body: object) => {
      const text = JSON.stringify(body);
      socket.end(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
    };
    const misdirected = admit(req);
    if (misdirected) return reject(MISDIRECTED.status, { message: misdirected });
    if (r?.service !== 'realtime') return reject(404, { message: 'no Route matched with those values' });
    const denied = await authorize(req, url, r.service, r.path);
    if (denied) return reject(denied.status, denied.body);
    const svc = services.get('realtime');
    if (!svc?.upgrade) return reject(503, { message: 'realtime is not running' });
    svc.upgrade(req, socket, head, r.path);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    port,
    server,
    mount: (s) => services.set(s.name, s),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** A service that forwards to an HTTP upstream (PostgREST), streaming both ways, headers untouched. */
export function proxyService(name: Service['name'], upstream: string): Service {
  const target = new URL(upstream);
  return {
    name,
    handle: (req, res, path) =>
      new Promise<void>((resolve) => {
        const headers = { ...req.headers, host: target.host };
        delete headers.connection;
        const up = http.request(
          { host: target.hostname, port: target.port, method: req.method, path, headers, agent },
          (upRes) => {
            // The gateway owns CORS; drop the upstream's own CORS headers.
            const h = Object.fromEntries(
              Object.entries(upRes.headers).filter(([k]) => !k.startsWith('access-control-')),
            );
            res.writeHead(upRes.statusCode ?? 502, h);
            upRes.pipe(res);
            upRes.on('end', resolve);
            upRes.on('error', () => resolve());
          },
        );
        up.on('error', () => {
          if (!res.headersSent)
            sendJson(res, 502, { message: 'An invalid response was received from the upstream server' });
          resolve();
        });
        req.pipe(up);
      }),
  };
}
