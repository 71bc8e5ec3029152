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
export async function startProvider({ resources, clients }) {
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
      devInteractions: { enabled: false },
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
  const discovery = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
  return {
    issuer,
    discovery,
    counts,
    close: () => new Promise((r) => server.close(r)),
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
