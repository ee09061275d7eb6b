import { lstat, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { aptCommand } from "../apt-hint.js";
import { buildOnce, exists, sha256Hex } from "../cache-dir.js";
import { MissingDependencyError } from "../errors.js";
import { runCommand } from "../run-command.js";
import { baseSystemFiles, IMAGE_PATH_ENV, writeSingleLayerImage } from "./oci-layout-writer.js";
import type { TarInput } from "./tar.js";

const BUSYBOX_STATIC = "/bin/busybox";
/** Part of the cache key: bump when the image's layout changes for the same host files. */
const RECIPE_VERSION = 2;

/** Stdlib parts an agent's code has no use for (tests, Tk, build configuration, installers). */
const LEFT_OUT = new Set([
  "test",
  "idlelib",
  "tkinter",
  "turtledemo",
  "lib2to3",
  "ensurepip",
  "distutils",
  "pydoc_data",
  "site-packages",
  "dist-packages",
  "venv",
]);

/**
 * Extension modules left out with the libraries only they load (about 5 MB of a 37 MB root that
 * the kernel unpacks on every boot): test modules, terminal UI (readline, curses), Berkeley DB,
 * NIS with Kerberos, crypt(3) and OSS audio.
 */
const LEFT_OUT_EXTENSIONS = /^(_test|xx|_xx|_ctypes_test|readline|_curses|_dbm|_gdbm|nis|_crypt|ossaudiodev)/;

export interface PythonImageOptions {
  /** The host's Debian python3 (python3-minimal + libpython3-stdlib); default /usr/bin/python3. */
  python?: string;
  busybox?: string;
}

/**
 * A Python image built from the host's Debian packages (no registry is reachable here, and
 * debootstrap needs root and a mirror): the `python3` binary with every shared library it and its
 * extension modules load (found with `ldd`), the standard library, and busybox-static for
 * `/bin/sh`. Modules are shipped as their Debian-compiled `.pyc` alone (sourceless, beside where
 * the `.py` was): a layer carries no mtimes, so a `.py` + `__pycache__` pair would be recompiled
 * on every start, which costs seconds under TCG. Small enough (about 30 MB) to boot with its root
 * in memory. Cached by the content of every file it holds.
 */
export async function buildDebianPythonImage(
  cacheDir: string,
  options: PythonImageOptions = {},
): Promise<string> {
  const busyboxPath = options.busybox ?? BUSYBOX_STATIC;
  const pythonLink = options.python ?? "/usr/bin/python3";
  if (!(await exists(pythonLink))) {
    throw new MissingDependencyError(
      `${pythonLink} is missing; the Python image copies Debian's python3: ${aptCommand("python3-minimal", "libpython3-stdlib")}`,
    );
  }
  if (!(await exists(busyboxPath))) {
    throw new MissingDependencyError(
      `${busyboxPath} is missing; install it with: ${aptCommand("busybox-static")}`,
    );
  }
  // Finding the files (ldd) and hashing 30 MB costs about a second per boot; a memo of every
  // file's and directory's identity (size, mtime, inode) answers in milliseconds until one changes.
  const memoPath = join(
    cacheDir,
    "images",
    `debian-python-memo-${sha256Hex(`${pythonLink}\n${busyboxPath}`).slice(0, 16)}.json`,
  );
  const remembered = await readMemo(memoPath);
  if (remembered) return remembered;
  const python = await realpath(pythonLink);
  const version = /python(3\.\d+)$/.exec(python)?.[1];
  if (!version)
    throw new MissingDependencyError(`${python} is not a pythonX.Y binary from Debian's python3 package`);
  const stdlib = `/usr/lib/python${version}`;
  const files = new Map<string, string>(); // guest path (no leading /) -> host path
  files.set(`usr/bin/python${version}`, python);
  const walked: string[] = [];
  const modules = await stdlibFiles(stdlib, version, walked);
  for (const [guest, host] of modules) files.set(guest, host);
  const elves = [python, ...[...modules.values()].filter((path) => path.endsWith(".so"))];
  for (const library of await sharedLibraries(elves)) files.set(library.slice(1), await realpath(library));
  files.set("bin/busybox", busyboxPath);

  const sorted = [...files].sort(([a], [b]) => a.localeCompare(b));
  const contents = new Map<string, Buffer>();
  const hash = sha256Hex(
    (
      await Promise.all(
        sorted.map(async ([guest, host]) => {
          const data = await readFile(host);
          contents.set(guest, data);
          return `${guest}\n${sha256Hex(data)}`;
        }),
      )
    ).join("\n") + `\nrecipe ${RECIPE_VERSION}`,
  );
  const layoutDir = join(cacheDir, "images", `debian-python${version}-${hash.slice(0, 24)}`);
  const built = await buildOnce(layoutDir, async (tmp) => {
    const dirs = new Set<string>([
      "root",
      "tmp",
      "dev",
      "proc",
      "sys",
      "run",
      "etc",
      "var/tmp",
      "usr/local/bin",
    ]);
    for (const [guest] of sorted) for (let d = dirname(guest); d !== "."; d = dirname(d)) dirs.add(d);
    const inputs: TarInput[] = [...dirs]
      .sort()
      .map((path) => ({ path, type: "dir" as const, ...(path === "tmp" ? { mode: 0o1777 } : {}) }));
    for (const [guest, host] of sorted) {
      const mode = (await stat(host)).mode & 0o777;
      inputs.push({ path: guest, type: "file", mode, data: contents.get(guest) as Buffer });
    }
    inputs.push({ path: "usr/bin/python3", type: "symlink", linkName: `python${version}` });
    // Every busybox applet, as in the busybox image: a shell and the usual tools for exec.
    const applets = (await runCommand(busyboxPath, ["--list-full"])).stdout.split("\n").filter(Boolean);
    for (const applet of applets)
      if (applet !== "bin/busybox" && !files.has(applet) && !dirs.has(applet))
        inputs.push({ path: applet, type: "symlink", linkName: "/bin/busybox" });
    inputs.push(...baseSystemFiles());
    await writeSingleLayerImage(tmp, inputs, {
      env: [IMAGE_PATH_ENV, "HOME=/root", "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1"],
      cmd: ["/usr/bin/python3"],
      gzipLevel: 1,
    });
  });
  const watched = [pythonLink, ...new Set(files.values()), ...walked];
  const memo: ImageMemo = { layoutDir: built, recipe: RECIPE_VERSION, identities: await identities(watched) };
  await writeFile(memoPath, JSON.stringify(memo));
  return built;
}

interface ImageMemo {
  layoutDir: string;
  recipe: number;
  /** Host path → its identity when the image was built. */
  identities: Record<string, string>;
}

async function identities(paths: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  await Promise.all(
    paths.map(async (path) => {
      const info = await lstat(path);
      out[path] = `${info.size}:${info.mtimeMs}:${info.ino}`;
    }),
  );
  return out;
}

/** The memo's image when every file and directory it watched is unchanged, else undefined. */
async function readMemo(memoPath: string): Promise<string | undefined> {
  let memo: ImageMemo;
  try {
    memo = JSON.parse(await readFile(memoPath, "utf8")) as ImageMemo;
  } catch {
    return undefined; // none yet, or unreadable: build afresh
  }
  if (memo.recipe !== RECIPE_VERSION || !(await exists(memo.layoutDir))) return undefined;
  try {
    const now = await identities(Object.keys(memo.identities));
    for (const [path, identity] of Object.entries(memo.identities))
      if (now[path] !== identity) return undefined;
  } catch {
    return undefined; // a watched file is gone
  }
  return memo.layoutDir;
}

/** The standard library as guest path → host file: `.pyc` in place of `.py` where Debian compiled one. */
async function stdlibFiles(stdlib: string, version: string, walked: string[]): Promise<Map<string, string>> {
  const tag = `cpython-${version.replace(".", "")}`;
  const out = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    walked.push(dir);
    const entries = await readdir(dir, { withFileTypes: true });
    const names = new Set(entries.map((entry) => entry.name));
    const cached = names.has("__pycache__")
      ? new Set(await readdir(join(dir, "__pycache__")))
      : new Set<string>();
    for (const entry of entries) {
      const host = join(dir, entry.name);
      const guest = host.slice(1);
      if (entry.isDirectory()) {
        if (entry.name === "__pycache__" || LEFT_OUT.has(entry.name) || entry.name.startsWith("config-"))
          continue;
        await walk(host);
      } else if (entry.isFile()) {
        if (entry.name.endsWith(".py")) {
          const pyc = `${entry.name.slice(0, -3)}.${tag}.pyc`;
          if (cached.has(pyc)) out.set(`${guest}c`, join(dir, "__pycache__", pyc));
          else out.set(guest, host);
        } else if (entry.name.endsWith(".so") && !LEFT_OUT_EXTENSIONS.test(entry.name)) {
          out.set(guest, host);
        } else if (!entry.name.endsWith(".pyc") && relative(stdlib, dir) === "") {
          out.set(guest, host); // LICENSE.txt and friends at the top
        }
      }
    }
  };
  await walk(stdlib);
  return out;
}

/** Every shared library (and the dynamic loader) the given ELF files load, as `ldd` reports them. */
async function sharedLibraries(elves: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < elves.length; i += 40) {
    const result = await runCommand("ldd", elves.slice(i, i + 40) as string[]);
    for (const match of result.stdout.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)) found.add(match[1] as string);
  }
  return found;
}
