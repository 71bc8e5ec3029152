// What the MCP provider tests share: the whole text of a tool result, a
// bounded wait for a condition, and whether a process still lives.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { sleep } from "../mcp/lib.mjs";

export { sleep };

// Every text block of a tool result, joined.
export const text = (r) => r.content?.map((c) => c.text ?? "").join("") ?? "";

// Poll `pred` every 50 ms; fail the test after `ms` naming `what`.
export async function waitFor(pred, ms, what) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await pred()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

// A process that exists and is not a zombie.
export const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
};
