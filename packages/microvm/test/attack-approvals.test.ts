import type { ApprovalRequest, Tool } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootPythonMachine, type Machine, MicroVmExecutor } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

const removed: string[] = [];
const tools: Tool[] = [
  {
    name: "remove",
    description: "Removes a file.",
    inputSchema: { type: "object", properties: { path: { type: "string" } } },
    needsApproval: true,
    execute: async (input: { path: string }) => {
      removed.push(input.path);
      return `removed ${input.path}`;
    },
  },
];

// The guest is the whole VM: its code runs in the harness's process and can write the channel.
const HARNESS =
  "import sys, json\nh = sys.modules[[k for k, m in sys.modules.items() if hasattr(m, 'call_tool') and hasattr(m, '_in')][0]]\n";

describe.skipIf(SKIP_VM_SUITES)("attack: micro-VM guest vs approvals", () => {
  let machine: Machine;
  let executor: MicroVmExecutor;
  beforeAll(async () => {
    machine = await bootPythonMachine();
    executor = await MicroVmExecutor.create({ machine, stopGraceMs: 1_000, watchdogGraceMs: 1_000 });
    await executor.setTools(tools);
  }, 240_000);
  afterAll(async () => {
    await executor?.close();
    await machine?.stop();
  });

  it("a guest that sends one tool-call id twice breaks its run: neither call runs", async () => {
    const requests: ApprovalRequest[] = [];
    const code = `${HARNESS}
h.send({"op": "tool", "id": 7, "name": "remove", "args": [], "kwargs": {"path": "tmp.txt"}})
h.send({"op": "tool", "id": 7, "name": "remove", "args": [], "kwargs": {"path": "/home/me/thesis"}})
got = 0
while got < 2:
    r = json.loads(h._in.readline())
    if r.get("op") == "tool-result":
        got += 1
print("done")
`;
    const result = await executor.run(code, {
      timeoutMs: 20_000,
      onApproval: (request) => {
        requests.push(request);
        return { approved: true };
      },
    });
    // Approval screens name a call by its id: a repeated one could have a person approve
    // another call, so the executor treats it as a broken protocol and replaces the sandbox.
    expect(result.error?.kind).toBe("crashed");
    expect(result.error?.message).toContain('it used the tool-call id "vm-7" twice in one run');
    expect(removed).not.toContain("/home/me/thesis");
    expect(new Set(requests.map((request) => request.toolCallId)).size).toBe(requests.length);
  }, 60_000);

  it("a step's time limit holds while an approval waits (a thread spins meanwhile)", async () => {
    const code = `${HARNESS}
import threading, time
spun = [0]
def spin():
    t0 = time.time()
    while time.time() - t0 < 6:
        spun[0] += 1
t = threading.Thread(target=spin); t.start()
try:
    remove(path="x")
except Exception as e:
    pass
t.join()
print("spun for 6 s")
`;
    const result = await executor.run(code, {
      timeoutMs: 1_000,
      onApproval: () => new Promise((r) => setTimeout(() => r({ approved: false, reason: "no" }), 8_000)),
    });
    // While another thread of the step can run, the step's timer is not held for the approval.
    expect(result.error?.kind).toBe("timeout");
  }, 60_000);
});
