import { generateKeyPairSync, randomBytes, randomUUID, type JsonWebKey } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A relying party registered at the test provider (confidential, authorization code flow only). Registered as
 * client_secret_basic, but oidc-provider 9 takes the secret by client_secret_post too (openid-client 6's default).
 */
export interface OidcTestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface OidcTestUser {
  sub: string;
  email: string;
  given_name?: string;
  family_name?: string;
  name?: string;
  /** Defaults to true: most tests want an account the service may trust. */
  email_verified?: boolean;
}

export interface OidcTestProviderOptions {
  clients: OidcTestClient[];
  users: OidcTestUser[];
}

export interface OidcTestProvider {
  /** `http://127.0.0.1:<port>`, as in the discovery document and the tokens' `iss`. */
  issuer: string;
  /**
   * Follows the whole browser-less flow: GET the authorization URL, pass the interaction as user `sub`, and follow
   * redirects (keeping the provider's cookies in a small cookie jar) until a redirect leaves the provider; returns
   * that final URL (the relying party's callback URL with code/state/iss, or with error=...).
   */
  signIn(authorizationUrl: string | URL, sub: string): Promise<URL>;
  /** Same, but the user denies, so the callback gets ?error=access_denied&state=... */
  deny(authorizationUrl: string | URL): Promise<URL>;
  /** Adds (or replaces, by sub) a user who can sign in from now on. */
  addUser(user: OidcTestUser): void;
  /** Closes the server and its open connections: later requests are refused, as when the provider is down. */
  stop(): Promise<void>;
}

// oidc-provider ships no type declarations (@types/oidc-provider describes v8), so we type only what we touch.
interface Interaction {
  uid: string;
  params: Record<string, unknown>;
  prompt: { name: string };
  grantId?: string;
  session?: { accountId?: string };
}

interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  save(): Promise<string>;
}

interface Provider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>): Promise<void>;
  Grant: {
    new (init: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  };
}

type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => Provider;

type Payload = Record<string, unknown>;

const OIDC_PROVIDER_MODULE: string = 'oidc-provider';
let providerClass: Promise<ProviderConstructor> | undefined;

/** Loads oidc-provider once, without its import-time "Unsupported runtime" warning (it wants Node 22; 20 works). */
function loadProvider(): Promise<ProviderConstructor> {
  providerClass ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (!String(args[0]).includes('Unsupported runtime')) warn(...args);
    };
    try {
      // A string-typed specifier keeps tsc from asking for the declarations the package does not have.
      const module = (await import(OIDC_PROVIDER_MODULE)) as { Provider: ProviderConstructor };
      return module.Provider;
    } finally {
      console.warn = warn;
    }
  })();
  return providerClass;
}

/**
 * oidc-provider's own memory adapter warns on every start and shares one store between providers;
 * this one is per provider and silent. Expiry is checked by oidc-provider from the payloads' `exp`.
 */
function memoryAdapterFactory() {
  const store = new Map<string, Payload>();
  const sessionIdsByUid = new Map<string, string>();
  return (model: string) => ({
    async upsert(id: string, payload: Payload) {
      store.set(`${model}:${id}`, payload);
      if (model === 'Session' && typeof payload.uid === 'string') sessionIdsByUid.set(payload.uid, id);
    },
    async find(id: string) {
      return store.get(`${model}:${id}`);
    },
    async findByUid(uid: string) {
      const id = sessionIdsByUid.get(uid);
      return id === undefined ? undefined : store.get(`${model}:${id}`);
    },
    async findByUserCode() {
      return undefined;
    },
    async consume(id: string) {
      const payload = store.get(`${model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    async destroy(id: string) {
      store.delete(`${model}:${id}`);
    },
    async revokeByGrantId(grantId: string) {
      for (const [key, payload] of store) if (payload.grantId === grantId) store.delete(key);
    },
  });
}

let key: JsonWebKey | undefined;

/** Our own key, so oidc-provider does not fall back to (and warn about) its development keys; made once, RSA is slow. */
function signingKey(): JsonWebKey {
  key ??= {
    ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
    kid: randomUUID(),
    alg: 'RS256',
    use: 'sig',
  };
  return key;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function loginPage(uid: string): string {
  return `<!DOCTYPE html>
<html><body>
<form method="post" action="/interaction/${uid}/login"><input name="sub"><button>Sign in</button></form>
<form method="post" action="/interaction/${uid}/abort"><button>Cancel</button></form>
</body></html>`;
}

/** The claim names asked for with the `claims` request parameter, so that they are granted as well. */
function requestedClaims(claimsParameter: unknown): string[] {
  if (typeof claimsParameter !== 'string') return [];
  const parsed = JSON.parse(claimsParameter) as { id_token?: object; userinfo?: object };
  return [...Object.keys(parsed.id_token ?? {}), ...Object.keys(parsed.userinfo ?? {})];
}

const INTERACTION_PATH = /^\/interaction\/([\w-]+)(?:\/(login|abort))?$/;

export async function startOidcTestProvider(options: OidcTestProviderOptions): Promise<OidcTestProvider> {
  const Provider = await loadProvider();
  const users = new Map(options.users.map((user) => [user.sub, user]));

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // The issuer must contain the port, which we only know once listening.
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: options.clients.map((client) => ({
      client_id: client.client_id,
      client_secret: client.client_secret,
      redirect_uris: client.redirect_uris,
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    responseTypes: ['code'],
    pkce: { required: () => true },
    scopes: ['openid'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name'],
    },
    // Without this oidc-provider keeps scope-requested claims out of the ID token (userinfo only).
    conformIdTokenClaims: false,
    async findAccount(_ctx: unknown, sub: string) {
      const user = users.get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        async claims() {
          return { ...user, email_verified: user.email_verified ?? true };
        },
      };
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    jwks: { keys: [signingKey()] },
    adapter: memoryAdapterFactory(),
    // Fixed values instead of the defaults' functions, which log a "you SHOULD change" notice on first use.
    ttl: { AccessToken: 3600, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
    renderError(ctx: { type: string; body: unknown }, out: Record<string, string>) {
      ctx.type = 'json';
      ctx.body = out;
    },
  });

  /** Grants what the authorization request asked for, on the grant of an earlier consent if there is one. */
  async function grantRequested(details: Interaction, accountId: string): Promise<string> {
    const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
    const grant = existing ?? new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    if (typeof details.params.scope === 'string') grant.addOIDCScope(details.params.scope);
    const claims = requestedClaims(details.params.claims);
    if (claims.length) grant.addOIDCClaims(claims);
    return grant.save();
  }

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined) {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error('interaction cookie and URL do not match');
    if (req.method === 'GET' && !action) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginPage(uid));
      return;
    }
    if (req.method !== 'POST' || !action) {
      res.writeHead(405).end();
      return;
    }
    if (action === 'abort') {
      await provider.interactionFinished(req, res, {
        error: 'access_denied',
        error_description: 'End-User aborted interaction',
      });
      return;
    }
    const form = new URLSearchParams(await readBody(req));
    const login = form.get('login');
    const sub = form.get('sub') ?? [...users.values()].find((user) => user.email === login)?.sub;
    const accountId = details.prompt.name === 'login' ? sub : details.session?.accountId;
    if (!accountId || !users.has(accountId)) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`unknown user ${sub ?? login}`);
      return;
    }
    // Login and consent in one step: the resumed authorization request finds both results.
    const grantId = await grantRequested(details, accountId);
    await provider.interactionFinished(req, res, {
      ...(details.prompt.name === 'login' ? { login: { accountId } } : {}),
      consent: { grantId },
    });
  }

  const handleProvider = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // No keep-alive: a pooled fetch connection would otherwise fail with "other side closed" after stop(),
    // where a stopped provider should refuse connections.
    res.shouldKeepAlive = false;
    const match = INTERACTION_PATH.exec(new URL(req.url ?? '/', issuer).pathname);
    if (!match) {
      handleProvider(req, res);
      return;
    }
    interaction(req, res, match[1]!, match[2]).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(error instanceof Error ? error.message : String(error));
    });
  });

  /** Drives the provider like a browser would, answering its interaction page with a POST to `action`. */
  async function follow(authorizationUrl: string | URL, action: string, form: Record<string, string>): Promise<URL> {
    const jar = new CookieJar();
    let url = new URL(authorizationUrl);
    for (let hop = 0; hop < 20; hop++) {
      if (url.origin !== issuer) return url;
      const isInteraction = INTERACTION_PATH.test(url.pathname);
      const target = isInteraction ? new URL(`${url.pathname}/${action}`, issuer) : url;
      const response = await fetch(target, {
        method: isInteraction ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          cookie: jar.header(target),
          ...(isInteraction ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(isInteraction ? { body: new URLSearchParams(form).toString() } : {}),
      });
      jar.store(response.headers.getSetCookie());
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || !location) {
        throw new Error(`test provider answered ${target.href} with ${response.status}: ${await response.text()}`);
      }
      url = new URL(location, target);
    }
    throw new Error('test provider redirected more than 20 times');
  }

  let stopped: Promise<void> | undefined;
  return {
    issuer,
    signIn: (authorizationUrl, sub) => follow(authorizationUrl, 'login', { sub }),
    deny: (authorizationUrl) => follow(authorizationUrl, 'abort', {}),
    addUser(user) {
      users.set(user.sub, user);
    },
    stop() {
      stopped ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // close() would wait for requests still in flight (a test may stop mid-flow); end them now.
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

/** Just enough of a browser's cookie handling for one flow: name, path, deletion. */
class CookieJar {
  readonly #cookies = new Map<string, { name: string; value: string; path: string }>();

  store(setCookieHeaders: string[]): void {
    for (const header of setCookieHeaders) {
      const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      let path = '/';
      let expired = value === '';
      for (const attribute of attributes) {
        const [key = '', attributeValue = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') path = attributeValue;
        if (key.toLowerCase() === 'expires' && Date.parse(attributeValue) <= Date.now()) expired = true;
        if (key.toLowerCase() === 'max-age' && Number(attributeValue) <= 0) expired = true;
      }
      const key = `${path} ${name}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path });
    }
  }

  header(url: URL): string {
    return [...this.#cookies.values()]
      .filter((cookie) => url.pathname === cookie.path || url.pathname.startsWith(cookie.path.replace(/\/?$/, '/')))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }
}
