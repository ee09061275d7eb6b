// A run that waits for a person's approval is saved, its process exits, and another process
// resumes it: the sandbox's variables come back by replaying the earlier steps (their tool calls
// answered from the record, never run again; their random numbers and clock reused), and the
// call that waited gets the answer. For QuickJS and for Python (replayed), and for the micro-VM
// (saved whole, a snapshot of the machine taken while its step waits), each side a process of
// its own.
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const fixture = join(here, "fixtures", "resume-agent.ts");
const tsx = pathToFileURL(
  createRequire(join(here, "..", "..", "packages", "agent", "package.json")).resolve("tsx"),
).href;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  state?: string;
  output?: unknown;
  calls?: Record<string, number>;
  logs?: string[];
  error?: { name: string; message: string };
}

async function side(args: string[]): Promise<Outcome> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--conditions=@atrium/source", "--import", tsx, fixture, ...args],
    { cwd: here, timeout: 120_000 },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Outcome;
}

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "atrium-resume-"));
  dirs.push(dir);
  return { keyFile: join(dir, "keys", "continuation.key"), continuation: join(dir, "run.continuation") };
}

// Real guests need QEMU and the rest .ci/setup.sh installs; without them the micro-VM case skips,
// except under CI=true where it must run.
const VM_READY =
  process.env.CI === "true" ||
  ["/usr/bin/qemu-system-x86_64", "/usr/bin/qemu-img", "/usr/bin/musl-gcc", "/usr/bin/python3"].every(
    (path) => existsSync(path),
  );
const languages = ["javascript", "python", ...(VM_READY ? ["microvm"] : [])];

describe.each(languages)("a %s run suspended on an approval", (language) => {
  it("is resumed by another process: earlier variables come back, no tool runs twice, and the approved call runs", async () => {
    const { keyFile, continuation } = workspace();
    const started = await side(["start", keyFile, continuation, language]);
    expect(started.state).toBe("suspended");
    expect(started.calls).toEqual({ add: 1 });
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(continuation, "utf8")).toMatch(/^atrium-run\.1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    // What step 1 printed in the first process: its base, random number and clock.
    const [base, r, t] = started.logs![0]!.split(" ").map(Number);

    const resumed = await side(["resume", keyFile, continuation, language, '{"approved":true}']);
    expect(resumed.state).toBe("success");
    expect(resumed.output).toEqual([base, r, t, "removed x.txt"]);
    expect(base).toBe(50);
    // `add` was answered from the record; `remove` ran once, after its approval.
    expect(resumed.calls).toEqual({ remove: 1 });
  }, 240_000);

  it("a denial reaches the resumed code, and the run goes on to its answer", async () => {
    const { keyFile, continuation } = workspace();
    const started = await side(["start", keyFile, continuation, language]);
    const [base, r, t] = started.logs![0]!.split(" ").map(Number);
    const resumed = await side([
      "resume",
      keyFile,
      continuation,
      language,
      '{"approved":false,"reason":"x.txt stays"}',
    ]);
    expect(resumed.state).toBe("success");
    expect(resumed.output).toEqual([base, r, t, "kept"]);
    expect(resumed.calls).toEqual({});
    expect(resumed.logs).toEqual([]);
  }, 240_000);
});

describe("a continuation that cannot be trusted", () => {
  it("is refused when changed, when signed with another key, or when its key file is readable by others", async () => {
    const { keyFile, continuation } = workspace();
    const started = await side(["start", keyFile, continuation, "javascript"]);
    expect(started.state).toBe("suspended");
    const saved = readFileSync(continuation, "utf8");
    const signatureMismatch = {
      name: "ContinuationError",
      message:
        "the continuation's signature does not match: it was changed after it was saved, or signed with another key",
    };

    // One character of the state changed: the code of a step, say.
    const [prefix, version, payload, signature] = saved.split(".");
    const state = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"));
    state.pending.code = state.pending.code.replace("x.txt", "y.txt");
    const tampered = [
      prefix,
      version,
      Buffer.from(JSON.stringify(state)).toString("base64url"),
      signature,
    ].join(".");
    writeFileSync(continuation, tampered);
    expect((await side(["resume", keyFile, continuation, "javascript", '{"approved":true}'])).error).toEqual(
      signatureMismatch,
    );

    const other = workspace();
    writeFileSync(other.continuation, saved);
    expect(
      (await side(["resume", other.keyFile, other.continuation, "javascript", '{"approved":true}'])).error,
    ).toEqual(signatureMismatch);

    writeFileSync(continuation, saved);
    chmodSync(keyFile, 0o644);
    expect((await side(["resume", keyFile, continuation, "javascript", '{"approved":true}'])).error).toEqual({
      name: "ConfigError",
      message: `the continuation key file ${keyFile} can be read by others (mode 644); run chmod 600 ${keyFile}`,
    });
  }, 240_000);

  it.skipIf(!VM_READY)(
    "a micro-VM run is refused when its snapshot file was changed after the run was saved",
    async () => {
      const { keyFile, continuation } = workspace();
      expect((await side(["start", keyFile, continuation, "microvm"])).state).toBe("suspended");
      const [, , payload] = readFileSync(continuation, "utf8").split(".");
      const snapshot = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8")).snapshot
        .path as string;
      const bytes = readFileSync(snapshot);
      const middle = bytes.length >> 1;
      bytes[middle] = (bytes[middle] ?? 0) ^ 0xff;
      writeFileSync(snapshot, bytes);
      expect((await side(["resume", keyFile, continuation, "microvm", '{"approved":true}'])).error).toEqual({
        name: "ContinuationError",
        message: `the run's snapshot ${snapshot} was changed after the run was saved (its SHA-256 differs from the one the continuation signed)`,
      });
    },
    240_000,
  );
});
