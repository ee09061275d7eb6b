// docs/deploy/ is written, not run (no Docker engine or Kubernetes cluster on these machines), so
// what can be checked here is: HAProxy itself accepts haproxy.cfg, the YAML files parse, and the
// balancing directives are the ones the replica test runs (tests/serving/haproxy.ts).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { haproxyConfig, haproxyInstalled } from "../serving/haproxy.ts";

const DEPLOY = fileURLToPath(new URL("../../docs/deploy", import.meta.url));
const read = (path: string) => readFileSync(join(DEPLOY, path), "utf8");

type Manifest = { kind?: string; metadata?: { name?: string }; spec?: Record<string, unknown> };

function manifests(path: string): Manifest[] {
  return parseAllDocuments(read(path)).map((document) => {
    expect(document.errors, path).toEqual([]);
    return document.toJS() as Manifest;
  });
}

describe("docs/deploy", () => {
  it.skipIf(!haproxyInstalled())("haproxy.cfg is a configuration HAProxy accepts", () => {
    const check = spawnSync("haproxy", ["-c", "-f", join(DEPLOY, "haproxy.cfg")], {
      encoding: "utf8",
      env: {
        ...process.env,
        ATRIUM_BIND: "127.0.0.1:18080",
        ATRIUM_DOCS_SERVICE: "localhost:8080",
        ATRIUM_HEALTH_TOKEN: "health-token",
      },
    });
    expect({ status: check.status, stdout: check.stdout.trim() }).toEqual({
      status: 0,
      stdout: "Configuration file is valid",
    });
  });

  it("balances as the replica test does: round-robin, Mcp-Session-Id stickiness, redispatch", () => {
    const tested = haproxyConfig({ replicas: ["http://127.0.0.1:1"], port: 2 }).split("\n");
    const written = read("haproxy.cfg").split("\n");
    const directives = tested.filter((line) =>
      /^\s+(balance|stick|stick-table|option redispatch|retries)\b/.test(line),
    );
    expect(directives).toHaveLength(6);
    for (const line of directives) expect(written).toContain(line);
  });

  it("the compose file and the Kubernetes manifests parse, and name what the guide says", () => {
    const [compose] = manifests("compose.yaml") as unknown as [
      { services: Record<string, { command?: string[]; ports?: string[] }> },
    ];
    expect(Object.keys(compose.services).sort()).toEqual(["chroma", "docs", "haproxy", "ingest"]);
    expect(compose.services.docs!.command).toEqual(
      expect.arrayContaining(["--http", "--tokens-file", "--chroma-url", "http://chroma:8000"]),
    );
    // Only HAProxy is published, and on the host's loopback.
    expect(compose.services.haproxy!.ports).toEqual(["127.0.0.1:8080:8080"]);
    for (const [name, service] of Object.entries(compose.services)) {
      if (name !== "haproxy") expect(service.ports, name).toBeUndefined();
    }

    const files = readdirSync(join(DEPLOY, "k8s")).sort();
    expect(files).toEqual(["chroma.yaml", "docs-replicas.yaml", "haproxy.yaml", "ingest-job.yaml"]);
    const kinds = files.flatMap((file) =>
      manifests(join("k8s", file)).map((m) => `${m.kind}/${m.metadata?.name}`),
    );
    expect(kinds.sort()).toEqual([
      "Deployment/atrium-docs",
      "Deployment/atrium-haproxy",
      "Job/atrium-docs-ingest",
      "Service/atrium-docs",
      "Service/atrium-haproxy",
      "Service/chroma",
      "StatefulSet/chroma",
    ]);
    const docs = manifests("k8s/docs-replicas.yaml").find((m) => m.kind === "Deployment")!;
    const container = (
      docs.spec as { template: { spec: { containers: { readinessProbe: unknown; args: string[] }[] } } }
    ).template.spec.containers[0]!;
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: "/health", port: "http" } });
    expect(container.args).toEqual(expect.arrayContaining(["--tokens-file", "--http"]));
  });
});

describe("docs/deploy/palace", () => {
  it("the compose file and the Kubernetes manifest parse, and run the palace servers as the e2e suite does", () => {
    const [compose] = manifests("palace/compose.yaml") as unknown as [
      {
        services: Record<
          string,
          { command?: string[]; ports?: string[]; environment?: Record<string, string> }
        >;
      },
    ];
    expect(Object.keys(compose.services).sort()).toEqual(["chroma", "haproxy", "palace", "postgres"]);
    const palace = compose.services.palace!;
    expect(palace.environment).toEqual({
      ATRIUM_PALACE_POSTGRES: "postgres://palace@postgres:5432/palace",
      ATRIUM_CHROMA_URL: "http://chroma:8000",
    });
    const script = (palace.command ?? []).join(" ");
    for (const part of [
      "atrium-palace init /tmp/palace",
      "atrium-palace mcp --palace /tmp/palace --http",
      "--tokens-file",
    ])
      expect(script).toContain(part);
    expect(compose.services.haproxy!.ports).toEqual(["127.0.0.1:8080:8080"]);
    for (const [name, service] of Object.entries(compose.services)) {
      if (name !== "haproxy") expect(service.ports, name).toBeUndefined();
    }

    const kinds = manifests("palace/k8s.yaml").map((m) => `${m.kind}/${m.metadata?.name}`);
    expect(kinds.sort()).toEqual([
      "Deployment/atrium-palace",
      "Service/atrium-palace",
      "Service/palace-postgres",
      "StatefulSet/palace-postgres",
    ]);
    const deployment = manifests("palace/k8s.yaml").find((m) => m.kind === "Deployment")!;
    const container = (
      deployment.spec as {
        template: { spec: { containers: { readinessProbe: unknown; args: string[] }[] } };
      }
    ).template.spec.containers[0]!;
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: "/health", port: "http" } });
    expect(container.args.join(" ")).toContain("atrium-palace mcp --palace /tmp/palace --http");
  });
});
