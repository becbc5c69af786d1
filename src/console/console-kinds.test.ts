import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runnerImport } from "vite";
import { allResourceTypes } from "../kinds/index.js";
import type { ResourceType } from "../registry/resource-type.js";

/** The console's own table of kinds (console/src/kinds.ts), loaded the way vite builds it. */
interface ConsoleKind {
  plural: string;
  kind: string;
  namespaced: boolean;
  access: boolean;
  fields: Array<{ path: string; annotation?: string }>;
  columns: Array<{ label: string }>;
}

async function consoleKinds(): Promise<ConsoleKind[]> {
  const file = fileURLToPath(new URL("../../console/src/kinds.ts", import.meta.url));
  const { module } = await runnerImport<{ KINDS: ConsoleKind[] }>(file, { configFile: false, logLevel: "silent" });
  return module.KINDS;
}

function servedKinds(): ResourceType[] {
  return allResourceTypes({
    cipher: { encrypt: (v) => v, decrypt: (v) => v },
    secretDataReaders: { mayReadData: () => true },
    tokenIssuer: { issue: async () => "", maxTtlSeconds: 60 },
  });
}

/** The schema at a dotted path (`spec.config.secretName`), or undefined when the schema has no such field. */
function schemaAt(schema: unknown, path: string): unknown {
  let cur = schema as { properties?: Record<string, unknown> } | undefined;
  for (const part of path.split(".")) cur = cur?.properties?.[part] as typeof cur;
  return cur;
}

const sameName = (a: string, b: string) => a.replace(/\s+/g, "").toLowerCase() === b.replace(/\s+/g, "").toLowerCase();

describe("the console's kind table agrees with what the server serves", async () => {
  const kinds = await consoleKinds();
  const served = servedKinds();

  it("lists kinds the server serves, with the same kind and scope", () => {
    assert.ok(kinds.length >= 7, `the console's kinds: ${kinds.map((k) => k.plural)}`);
    for (const k of kinds) {
      const rt = served.find((r) => r.plural === k.plural);
      assert.ok(rt, `${k.plural} is served`);
      assert.equal(k.kind, rt.kind, k.plural);
      assert.equal(k.namespaced, rt.namespaced, `${k.plural}: namespaced`);
    }
  });

  it("offers the access rule editor exactly on the kinds whose schema has spec.access", () => {
    for (const k of kinds) {
      const rt = served.find((r) => r.plural === k.plural)!;
      assert.equal(k.access, schemaAt(rt.schema, "spec.access") !== undefined, `${k.plural}: access`);
    }
  });

  it("edits only fields the schema has", () => {
    for (const k of kinds) {
      const rt = served.find((r) => r.plural === k.plural)!;
      for (const f of k.fields) {
        assert.ok(schemaAt(rt.schema, f.path) !== undefined, `${k.plural}: ${f.path} is in the schema`);
      }
    }
  });

  it("names each list column after one of the server's Table columns", () => {
    for (const k of kinds) {
      const rt = served.find((r) => r.plural === k.plural)!;
      const names = (rt.columns ?? []).map((c) => c.name);
      for (const c of k.columns) {
        assert.ok(
          names.some((n) => sameName(n, c.label)),
          `${k.plural}: column "${c.label}" is one of ${names}`,
        );
      }
    }
  });
});
