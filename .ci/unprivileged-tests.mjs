// Runs the tests whose outcome depends on who runs them once as an unprivileged user, as a
// newcomer's `npm test` on a fresh clone runs them: the ChromaFs oracle (`ls -l` and `stat %U %G`
// compare owners with GNU's on a disk copy the running user wrote) and the micro-VM image import
// (debugfs lives in /sbin, off an ordinary user's PATH).
//
//   node .ci/unprivileged-tests.mjs        as root: drops to uid/gid 65534 with setpriv
//                                          as anyone else: runs as that user
//
// The checkout stays root-owned, so nothing may be written into it: each run gets a scratch
// HOME/TMPDIR/XDG_CACHE_HOME owned by the user, vitest loads its config without writing a bundled
// copy beside it (`--configLoader runner`) and reports to the terminal only (the summary reporter
// writes into the package). PATH is an ordinary user's (no sbin) plus node's folder. CI passes
// through, so a tool missing under CI=true fails instead of skipping. Called from run-tests.mjs
// under CI=true.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const UNPRIVILEGED = 65534; // nobody/nogroup on Debian

const SUITES = [
  { dir: "packages/chromafs", files: ["test/oracle-local.test.ts", "test/oracle-chroma.test.ts"] },
  { dir: "packages/microvm", files: ["test/image-import.test.ts"] },
];

const asRoot = process.getuid?.() === 0;

/** A set-up problem: said in one line, and the run fails (after the scratch folder is removed). */
class SetupError extends Error {}

/** The command prefix that runs a program as the unprivileged user (nothing when not root). */
const drop = asRoot
  ? ["setpriv", `--reuid=${UNPRIVILEGED}`, `--regid=${UNPRIVILEGED}`, "--clear-groups", "--"]
  : [];

function run(argv, options) {
  const [command, ...args] = [...drop, ...argv];
  return spawnSync(command, args, options);
}

if (asRoot && spawnSync("setpriv", ["--version"], { stdio: "ignore" }).error) {
  console.error(
    "unprivileged-tests: setpriv is needed to drop root's privileges; install it with: sudo apt-get install -y util-linux",
  );
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), "atrium-unprivileged-"));
let status = 0;
try {
  if (asRoot) chownSync(scratch, UNPRIVILEGED, UNPRIVILEGED);
  chmodSync(scratch, 0o700);
  const env = {
    PATH: [dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
    HOME: scratch,
    TMPDIR: scratch,
    XDG_CACHE_HOME: join(scratch, ".cache"),
    LANG: "C.UTF-8",
    ...(process.env.CI ? { CI: process.env.CI } : {}),
  };
  const user = run(["id", "-un"], { env, encoding: "utf8" });
  console.log(`\n── unprivileged tests, as ${user.stdout.trim() || `uid ${UNPRIVILEGED}`} ──`);
  const readable = run(["test", "-r", join(root, "packages", "chromafs", "package.json")], { env });
  if (readable.status !== 0)
    throw new SetupError(
      `uid ${UNPRIVILEGED} cannot read the checkout at ${root}; make it readable by others (chmod -R o+rX ${root})`,
    );
  for (const suite of SUITES) {
    const cwd = join(root, suite.dir);
    const vitest = join(cwd, "node_modules", "vitest", "vitest.mjs");
    const args = ["run", ...suite.files, "--configLoader", "runner", "--reporter", "default"];
    const started = performance.now();
    const result = run([process.execPath, vitest, ...args], { cwd, env, stdio: "inherit" });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const ok = result.status === 0;
    console.log(
      `unprivileged-tests: ${ok ? "ok  " : "FAIL"} ${suite.dir} ${suite.files.join(" ")} (${seconds} s)`,
    );
    if (!ok) status = 1;
  }
} catch (error) {
  if (!(error instanceof SetupError)) throw error;
  console.error(`unprivileged-tests: ${error.message}`);
  status = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(status);
