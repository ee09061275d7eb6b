// Issue 26, item 1: `npm run demo -- --web` on a newcomer's first start, as a user who is not
// root, with QEMU and a kernel installed and an empty micro-VM kernel cache. It crashed there with
// `write EPIPE` (the kernel's decompression, run by the host check before the URL is printed)
// and left `vmlinux.tmp-*` behind. Here the demo runs as a user who is not root with its own
// empty HOME and XDG_CACHE_HOME (as root, as CI runs, through `setpriv` as nobody, 65534; as
// anyone else, as that user), and must print its URL, serve the page on it, and leave exactly the
// decompressed kernel in its cache.
import { type ChildProcess, spawn } from "node:child_process";
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";
import { alive, until } from "./demo-web-process.js";

const DEMO_DIR = fileURLToPath(new URL("../../apps/demo", import.meta.url));
const NOBODY = 65_534;
const CI = process.env.CI === "true";
const AS_ROOT = process.getuid?.() === 0;
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => existsSync(path));
const QEMU = "/usr/bin/qemu-system-x86_64";

/** Why this host cannot run the test, or undefined. Under CI=true every reason is a failure. */
function missing(): string | undefined {
  // Root drops to nobody; any other user already is the user this test is about.
  if (AS_ROOT && !SETPRIV) return "setpriv is missing (sudo apt-get install -y util-linux)";
  if (!existsSync(QEMU)) return `${QEMU} is missing (sudo apt-get install -y qemu-system-x86)`;
  if (!existsSync("/boot") || !readdirSync("/boot").some((name) => name.startsWith("vmlinuz-")))
    return "no kernel in /boot (sudo apt-get install -y linux-image-amd64)";
  return undefined;
}
const reason = missing();
if (reason && CI) throw new Error(`the unprivileged web UI test cannot run under CI=true: ${reason}`);
if (reason) console.warn(`skipping the unprivileged first start of the web UI: ${reason}`);

/** A directory (and everything in it) handed to nobody, as a user's own files are theirs. */
function giveToNobody(dir: string): void {
  chownSync(dir, NOBODY, NOBODY);
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    chownSync(join(entry.parentPath, entry.name), NOBODY, NOBODY);
  }
}

describe.skipIf(reason !== undefined)("npm run demo -- --web, first start as an unprivileged user", () => {
  let root: string;
  let home: string;
  let corpus: string;
  let child: ChildProcess | undefined;
  let stdout = "";
  let stderr = "";
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "atrium-web-nobody-"));
    home = join(root, "home");
    mkdirSync(home);
    mkdirSync(join(root, "data"));
    mkdirSync(join(root, "tmp"));
    corpus = corpusCopy(SOME_PAGES);
    if (AS_ROOT) {
      // corpusCopy makes its own temporary folder; nobody must be able to read it.
      giveToNobody(corpus);
      giveToNobody(root);
    }
    // The checkout must be readable by the user, as a user's own clone is by that user.
    accessSync(join(DEMO_DIR, "src", "main.ts"), constants.R_OK);
  });

  afterAll(async () => {
    if (child?.pid && alive(child.pid)) {
      process.kill(-child.pid, "SIGKILL");
      await exited;
    }
    removeDirs(root, corpus);
  });

  it("prints its URL, serves the page there and caches the kernel with no temporary left", async () => {
    // Root drops to nobody; any other user runs Node as itself.
    const [command, ...prefix] = AS_ROOT
      ? [
          SETPRIV as string,
          `--reuid=${NOBODY}`,
          `--regid=${NOBODY}`,
          "--clear-groups",
          "--",
          process.execPath,
        ]
      : [process.execPath];
    child = spawn(
      command as string,
      [
        ...prefix,
        "--conditions=@atrium/source",
        "--import",
        "tsx",
        "src/main.ts",
        "--web",
        "--corpus",
        corpus,
        "--data",
        join(root, "data"),
      ],
      {
        cwd: DEMO_DIR,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        // A fresh user's environment: nothing of the test's, an empty home and cache.
        env: {
          PATH: "/usr/local/bin:/usr/bin:/bin",
          HOME: home,
          XDG_CACHE_HOME: join(home, ".cache"),
          TMPDIR: join(root, "tmp"),
          LANG: "C.UTF-8",
          NO_COLOR: "1",
          ...(CI ? { CI: "true" } : {}),
        },
      },
    );
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    exited = new Promise((resolve) => child!.once("exit", (code, signal) => resolve({ code, signal })));

    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const found = /^Web UI: (http:\/\/\S+)/m.exec(stdout)?.[1];
        if (found) {
          clearInterval(timer);
          resolve(found);
        } else if (child!.exitCode !== null || child!.signalCode !== null) {
          clearInterval(timer);
          reject(
            new Error(
              `the web demo exited (${child!.exitCode ?? child!.signalCode}) without a URL:\n${stdout}\n${stderr}`,
            ),
          );
        }
      }, 50);
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("<title>Atrium demo: docs assistant</title>");

    // The host check decompressed the kernel into the user's empty cache: the kernel, nothing else.
    const kernels = join(home, ".cache", "atrium", "microvm", "kernels");
    const digests = readdirSync(kernels);
    expect(digests).toHaveLength(1);
    expect(readdirSync(join(kernels, digests[0] as string))).toEqual(["vmlinux"]);
    expect(stderr).not.toContain("EPIPE");
    expect(stdout).toContain("Web UI:");

    // Ctrl-C stops it, as a user's terminal would.
    process.kill(-child.pid!, "SIGINT");
    const { signal } = await exited;
    expect(signal).toBeNull();
    await until(() => !alive(child!.pid!), 10_000, "the web demo to exit");
  }, 240_000);
});
