import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchOsSandbox } from "@atrium/kit";

// One file, in a folder mounted read-only at /atrium/app (world-readable: it runs as another uid).
const dir = mkdtempSync(join(tmpdir(), "app-"));
chmodSync(dir, 0o755);
writeFileSync(join(dir, "main.mjs"), "console.log(Object.keys(process.env), process.cwd());");
const { child } = launchOsSandbox({ dir, main: "main.mjs" });
child.stdout?.pipe(process.stdout); // [ 'PWD' ] /atrium/app: an empty environment, no host paths
