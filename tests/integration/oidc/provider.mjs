// A certified OpenID provider (panva's oidc-provider) on 127.0.0.1 for the
// sign-in tests: client credentials grants with resource indicators
// (RFC 8707), so a test asks for a JWT or an opaque access token for a
// resource whose audience the provider decides; token introspection
// (RFC 7662) for this server's own client; revocation (RFC 7009).
import { createServer } from "node:http";
import { generateKeyPairSync } from "node:crypto";

// The provider is this directory's pinned npm package.
async function oidcProvider() {
  try {
    return await import("oidc-provider");
  } catch (e) {
    console.error(`oidc-provider is not installed (${e.code}): run ./setup.sh test, or npm ci in ${new URL(".", import.meta.url).pathname}`);
    process.exit(1);
  }
}

export const SCOPE = "mcp:tools";

// Storage of one provider's own: the provider's built-in memory adapter is
// shared by every provider of a process, so a second provider ("another
// issuer") would find the first one's opaque tokens.
function adapterFor(store) {
  return class {
    constructor(name) {
      this.name = name;
    }
    key(id) {
      return `${this.name}:${id}`;
    }
    async upsert(id, payload, expiresIn) {
      store.set(this.key(id), { payload, until: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
    }
    async find(id) {
      const e = store.get(this.key(id));
      return e && e.until > Date.now() ? e.payload : undefined;
    }
    async findByUid(uid) {
      for (const [k, e] of store) if (k.startsWith(`${this.name}:`) && e.payload.uid === uid) return e.payload;
    }
    async findByUserCode(code) {
      for (const [k, e] of store) if (k.startsWith(`${this.name}:`) && e.payload.userCode === code) return e.payload;
    }
    async consume(id) {
      const e = store.get(this.key(id));
      if (e) e.payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id) {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId) {
      for (const [k, e] of store) if (e.payload.grantId === grantId) store.delete(k);
    }
  };
}

// resources: { "<resource indicator>": { audience, format: "jwt" | "opaque", ttl } }
export async function startProvider({ resources, clients, interactive = false }) {
  const { default: Provider, errors } = await oidcProvider();
  let handler = (req, res) => res.writeHead(503).end();
  const counts = { introspection: 0 };
  const server = createServer((req, res) => {
    if (req.method === "POST" && req.url.startsWith("/token/introspection")) counts.introspection++;
    handler(req, res);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const provider = new Provider(issuer, {
    clients,
    adapter: adapterFor(new Map()),
    scopes: ["openid", SCOPE],
    cookies: { keys: ["vthost-test-cookie-key"] },
    jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid: "sig-1", use: "sig", alg: "RS256" }] },
    features: {
      devInteractions: { enabled: interactive }, // a login and a consent form, for any user
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo(ctx, indicator) {
          const r = resources[indicator];
          if (!r) throw new errors.InvalidTarget();
          return { scope: SCOPE, audience: r.audience, accessTokenFormat: r.format, accessTokenTTL: r.ttl ?? 300, jwt: { sign: { alg: "RS256" } } };
        },
      },
    },
  });
  handler = provider.callback();
  const discovery = await (await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(20000) })).json();
  return {
    issuer,
    discovery,
    counts,
    // kept-alive connections (the test's own fetches) would hold close() open
    close: () =>
      new Promise((r) => {
        server.close(r);
        server.closeAllConnections();
      }),
    // a client_credentials grant for `resource`: the access token
    async token(clientId, secret, resource, scope = SCOPE) {
      const r = await fetch(discovery.token_endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: "Basic " + Buffer.from(`${clientId}:${secret}`).toString("base64") },
        body: new URLSearchParams({ grant_type: "client_credentials", scope, resource }),
      });
      const j = await r.json();
      if (!j.access_token) throw new Error(`token endpoint: ${r.status} ${JSON.stringify(j)}`);
      return j.access_token;
    },
    async revoke(clientId, secret, token) {
      const r = await fetch(discovery.revocation_endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: "Basic " + Buffer.from(`${clientId}:${secret}`).toString("base64") },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }),
      });
      if (r.status !== 200) throw new Error(`revocation endpoint: ${r.status}`);
    },
  };
}

// The browser's part of an authorization-code sign-in, by fetch: follow
// the provider's redirects with a cookie jar, submit its login form (as
// `user`) and its consent form, and return the `code` sent to
// redirectUri.
export async function signInAs(authorizationUrl, redirectUri, user) {
  const jar = new Map();
  const cookies = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const keep = (res) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  let url = String(authorizationUrl);
  let body;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(redirectUri)) {
      const code = new URL(url).searchParams.get("code");
      if (!code) throw new Error(`sign-in ended without a code: ${url}`);
      return code;
    }
    const res = await fetch(url, {
      method: body ? "POST" : "GET",
      redirect: "manual",
      headers: { Cookie: cookies(), ...(body ? { "Content-Type": "application/x-www-form-urlencoded" } : {}) },
      body,
    });
    keep(res);
    body = undefined;
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location"), url).href;
      continue;
    }
    const html = await res.text();
    const prompt = html.match(/name="prompt" value="(\w+)"/)?.[1];
    const action = html.match(/<form[^>]*action="([^"]+)"/)?.[1];
    if (res.status !== 200 || !prompt || !action) throw new Error(`sign-in stopped at ${url}: ${res.status} ${html.slice(0, 300)}`);
    url = new URL(action, url).href;
    body = new URLSearchParams(prompt === "login" ? { prompt, login: user, password: "any" } : { prompt }).toString();
  }
  throw new Error("sign-in: too many redirects");
}
