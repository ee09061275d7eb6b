// Test support shared by the ingest and store tests (not exported from the package): a small
// docs corpus with public, group-restricted, unicode, navigation and lazy pages, and a real
// Chroma server per test file.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";

/** A line that appears only in a page hidden from the public: it must never leak. */
export const SECRET_LINE = "SECRET-PHRASE-7431: the launch plan for Q3";

const bigPage = `# Big spec\n\n${Array.from({ length: 6_000 }, (_, index) => `operation ${index}: returns the widget list page ${index}`).join("\n")}\n`;

export const FIXTURE_PAGES: Record<string, string> = {
  "index.mdx": "---\ntitle: Welcome\n---\n\nStart here.\n\n## Next steps\n\nRead the guides.\n",
  "guides/intro.md":
    "# Getting started\n\nInstall the CLI with `npm i -g mint`.\n\n## Preview\n\nRun `mint dev`.\n",
  "guides/deploy.mdx":
    '---\ntitle: "Deploy"\n---\n\n# Custom domain\n\nConfigure a custom domain in the dashboard.\nPoint a CNAME record at the host.\n\n```bash\n# not a heading\ndig docs.example.com\n```\n',
  "internal/roadmap.mdx": `---\ntitle: Roadmap\n---\n\n# Plans\n\n${SECRET_LINE}\n`,
  "internal/handbook.mdx":
    "---\ntitle: Handbook\ngroups: []\n---\n\nThis page is public despite its folder.\n",
  "enterprise/sso.mdx":
    "---\ntitle: SSO\ngroups: [enterprise, staff]\n---\n\n# SAML\n\nSAML single sign-on for enterprise plans.\n",
  "zh/指南.mdx": "---\ntitle: 指南\n---\n\n# 配置自定义域名\n\n在仪表板中配置自定义域名。Ünïcödé ✓\n",
  "docs.json": '{\n  "name": "Fixture docs",\n  "navigation": { "pages": ["index", "guides/intro"] }\n}\n',
  "big/spec.md": bigPage,
  ".hidden/ignored.md": "# never ingested\n",
  "notes.txt": "not a page\n",
};

/** What ingest stores: every page but dot-dirs and non-docs files. */
export const INGESTED_PATHS = Object.keys(FIXTURE_PAGES)
  .filter((path) => !path.startsWith(".") && path !== "notes.txt")
  .map((path) => `/${path}`)
  .sort();

export const GROUPS_FILE_CONTENT = JSON.stringify({ "internal/**": ["staff"] });

export interface TestChroma {
  server: ChromaServer;
  /** A fresh temp dir for this file; removed by `close()`. */
  root: string;
  close(): Promise<void>;
}

export async function startTestChroma(prefix: string): Promise<TestChroma> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const server = await startChromaServer({ path: join(root, "chroma") });
  return {
    server,
    root,
    async close() {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Writes the fixture corpus (and its groups file) under `root`; returns their paths. */
export async function writeFixtureCorpus(
  root: string,
  name = "docs",
): Promise<{ dir: string; groupsFile: string }> {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(FIXTURE_PAGES)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const groupsFile = join(root, `${name}-groups.json`);
  await writeFile(groupsFile, GROUPS_FILE_CONTENT);
  return { dir, groupsFile };
}
