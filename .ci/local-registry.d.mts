// Types of local-registry.mjs, for the TypeScript suites that import it (tests/install).

export const VERDACCIO_VERSION: string;
export const SCOPE: string;

export interface PackedSetPackage {
  name: string;
  version: string;
  tarball: string;
  manifest: object;
}

export interface PackedSet {
  commit: string;
  packages: PackedSetPackage[];
  failed: { name: string; dir: string; message: string }[];
}

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  pid: number;
  dir: string;
  /** The line a test project's .npmrc needs: `@atrium:registry=<url>/`. */
  npmrc: string;
  publish(tarballs: string[]): Promise<void>;
  stop(): Promise<void>;
}

export function installVerdaccio(root: string, log?: (message: string) => void): string;
export function startLocalRegistry(root: string, log?: (message: string) => void): Promise<LocalRegistry>;
export function startWithHeadPublished(
  root: string,
  log?: (message: string) => void,
): Promise<LocalRegistry & { set: PackedSet }>;
export function installedFromRegistry(project: string, set: PackedSet, url: string): string[];
