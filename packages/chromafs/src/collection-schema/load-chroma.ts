import type * as ChromaModule from "@atrium/chroma";
import { ConfigError } from "@atrium/spec";

/** The `@atrium/chroma` module, as the parts of this package that talk to Chroma use it. */
export type Chroma = typeof ChromaModule;

// `@atrium/chroma` (and chromadb's native server bindings under it) is an optional peer: the
// folder store, the filesystem, the agent tools and the MCP server never load it, so a user who
// only wants those doesn't install hundreds of megabytes. Only the Chroma paths import it, here.
let loaded: Chroma | undefined;
let loading: Promise<Chroma> | undefined;

/**
 * Loads `@atrium/chroma` on first use. `who` names what needs it, for the error a user sees when
 * the package is not installed.
 */
export function loadChroma(who = "ChromaDocStore"): Promise<Chroma> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= (import("@atrium/chroma") as Promise<Chroma>).then(
    (chroma) => {
      loaded = chroma;
      return chroma;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading.catch((error: unknown) => {
    throw explainMissing(error, "@atrium/chroma", who);
  });
}

/**
 * The error to throw when importing `specifier` failed: a ConfigError naming the package to add
 * when it (or chromadb under it) is not installed, else the import's own error.
 */
export function explainMissing(error: unknown, specifier: string, who: string): unknown {
  if (!isMissing(error, specifier)) return error;
  return new ConfigError(`${who} needs @atrium/chroma (and chromadb): npm install @atrium/chroma`, {
    cause: error,
  });
}

/** The module once `loadChroma` has loaded it: a `ChromaDocStore` exists only after that. */
export function loadedChroma(): Chroma | undefined {
  return loaded;
}

function isMissing(error: unknown, specifier: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return error.message.includes(`'${specifier}'`) || error.message.includes("'chromadb'");
}
