import { describe, expect, it } from "vitest";
import { classifyStartFailure, describeStartFailure } from "./start-failure.js";

// The loader error Node prints when a newer binding meets Debian 12's glibc 2.36.
const GLIBC_OUTPUT = `node:internal/modules/cjs/loader:1460
  return process.dlopen(module, path.toNamespacedPath(filename));
Error: /lib/x86_64-linux-gnu/libc.so.6: version \`GLIBC_2.38' not found (required by /x/node_modules/chromadb-js-bindings-linux-x64-gnu/chromadb-js-bindings.linux-x64-gnu.node)
    at Module._extensions..node (node:internal/modules/cjs/loader:1460:18)`;

const context = {
  dataDir: "/data/docs",
  url: "http://127.0.0.1:4000",
  port: 4000,
  exitCode: 1,
  signal: null,
};

describe("start failure messages", () => {
  it("explains a glibc mismatch with the version, the 1.0.5 pin and the data dir", () => {
    expect(classifyStartFailure(GLIBC_OUTPUT)).toBe("glibc");
    const message = describeStartFailure({ ...context, output: GLIBC_OUTPUT });
    expect(message).toContain("needs glibc 2.38, but this system has glibc");
    expect(message).toContain('"chromadb-js-bindings-linux-x64-gnu": "1.0.5"');
    expect(message).toContain("Data dir: /data/docs, port 4000.");
  });

  it("recognises the pinned server's port message, which it prints without exiting", () => {
    const output = "Address 127.0.0.1:4000 is not available\n";
    expect(classifyStartFailure(output)).toBe("port-in-use");
    expect(describeStartFailure({ ...context, output })).toBe(
      "Port 4000 is already in use, so the Chroma server for /data/docs could not listen on http://127.0.0.1:4000. " +
        "Choose another port or leave it unset to pick a free one.\nLast server output:\nAddress 127.0.0.1:4000 is not available",
    );
  });

  it("names a missing binding package", () => {
    const output = "Error: Cannot find module 'chromadb-js-bindings-linux-x64-gnu'";
    expect(classifyStartFailure(output)).toBe("binding-missing");
    expect(describeStartFailure({ ...context, output })).toContain(
      "chromadb-js-bindings-<platform>) is not installed",
    );
  });

  it("reports anything else with the exit status and the last lines", () => {
    const output = Array.from({ length: 20 }, (_, index) => `line ${index}`).join("\n");
    const message = describeStartFailure({ ...context, output });
    expect(message.split("\n")[0]).toBe(
      "The Chroma server for data dir /data/docs exited with code 1 before answering on http://127.0.0.1:4000.",
    );
    expect(message).toContain("line 5\n");
    expect(message).not.toContain("line 4\n");
  });
});
