// A JSON-RPC client of `vthost serve` on stdio, one message a line, for
// the permission and patch tests.  `answer(m)` gives the result of a
// request the server sends (elicitation/create, ...), or undefined to
// refuse it as unknown.
import readline from 'node:readline';

export function lineClient(p, answer = () => undefined) {
  const pending = new Map();
  let nextId = 1;
  const send = (m) => p.stdin.write(JSON.stringify(m) + '\n');
  readline.createInterface({ input: p.stdout }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.method && m.id !== undefined) { // a request from the server
      const result = answer(m);
      send({ jsonrpc: '2.0', id: m.id,
             ...(result !== undefined ? { result } : { error: { code: -32601, message: 'no' } }) });
    } else if (m.id !== undefined && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    }
  });
  const request = (method, params) => new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    send({ jsonrpc: '2.0', id, method, params });
  });
  return { send, request };
}
