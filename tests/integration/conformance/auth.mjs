// Preloaded into the conformance runner (node --import).  Its clients
// take no headers, and `vthost serve --http` answers nothing without the
// bearer token, so every request to the server under test (and only to
// it) gets `Authorization: Bearer <token>`.  The runner sends with fetch
// and with undici's request; both go through undici's global dispatcher,
// which is replaced here by one that adds the header.
import { createRequire } from "node:module";

// the runner's own undici (its dependency, not ours)
const runnerRequire = createRequire(new URL("node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url));
const { Agent, setGlobalDispatcher } = runnerRequire("undici");

const url = process.env.VTHOST_CONFORMANCE_URL;
const token = process.env.VTHOST_CONFORMANCE_TOKEN;
if (!url || !token) throw new Error("auth.mjs: set VTHOST_CONFORMANCE_URL and VTHOST_CONFORMANCE_TOKEN");
const origin = new URL(url).origin;

// undici passes headers as a flat [name, value, ...] array or an object.
function withToken(headers) {
  const value = `Bearer ${token}`;
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2)
      if (String(headers[i]).toLowerCase() === "authorization") return headers;
    return [...headers, "authorization", value];
  }
  const h = { ...(headers ?? {}) };
  if (!Object.keys(h).some((k) => k.toLowerCase() === "authorization")) h.authorization = value;
  return h;
}

const addToken = (dispatch) => (opts, handler) =>
  dispatch(String(opts.origin) === origin ? { ...opts, headers: withToken(opts.headers) } : opts, handler);

setGlobalDispatcher(new Agent().compose(addToken));
