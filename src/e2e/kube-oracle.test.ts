/**
 * The compatibility oracle: the platform's kinds installed into a real kube-apiserver as CRDs
 * made from the platform's own OpenAPI document and discovery, then the same corpus of requests
 * sent to both (every verb of every stored kind, bad input, request options, the wording of
 * 422s and of refused preconditions, what a JSON patch's replace of a missing target does). Answers are compared normalised (src/testing/oracle/normalise.ts). A difference is either
 * fixed or listed, with its reason, in src/testing/oracle/known-differences.ts and
 * docs/kubernetes-clients.md.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { ApiError } from "../api/errors.js";
import { API_PREFIX, GROUP, VERSION } from "../api/object.js";
import { defaultWriteOptions } from "../registry/options.js";
import { KubeControlPlane } from "../testing/kube-control-plane.js";
import { NAMESPACE, VERB_CASES } from "../testing/oracle/corpus.js";
import { BAD_INPUT_CASES } from "../testing/oracle/corpus-bad-input.js";
import { JSON_PATCH_CASES } from "../testing/oracle/corpus-json-patch.js";
import { KUBE_WORDS_CASES } from "../testing/oracle/corpus-kube-words.js";
import { PRECONDITION_CASES } from "../testing/oracle/corpus-preconditions.js";
import { crdsFromPlatform } from "../testing/oracle/crds.js";
import { KNOWN_DIFFERENCES } from "../testing/oracle/known-differences.js";
import { PROBE_COLLECTION, probe, probeCrd, probeStore } from "../testing/oracle/probe-kind.js";
import { withRulesCheckedInCode } from "../testing/oracle/rules-in-code.js";
import { runCase } from "../testing/oracle/run-case.js";
import { type Target, target } from "../testing/oracle/targets.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const CASES = [...VERB_CASES, ...BAD_INPUT_CASES, ...KUBE_WORDS_CASES, ...PRECONDITION_CASES, ...JSON_PATCH_CASES];
const known = new Map(KNOWN_DIFFERENCES.map((d) => [d.case, d.reason]));

describe("compatibility oracle: the platform against kube-apiserver serving its kinds as CRDs", () => {
  let kube: KubeControlPlane;
  let server: TestServer;
  let kubeSide: Target;
  let platformSide: Target;

  before(async () => {
    [kube, server] = await Promise.all([KubeControlPlane.start(), startTestServer()]);
    await installCrds(kube, server);
    await kube.kubectl("create", "namespace", NAMESPACE);
    const oracle = await kube.user("oracle", ["system:masters"]);
    const groupVersion = `${GROUP}/${VERSION}`;
    kubeSide = target(
      "kube",
      { url: kube.url, prefix: "", caPem: kube.caPem, credentials: oracle.credentials },
      groupVersion,
    );
    platformSide = target(
      "platform",
      { url: server.url, prefix: API_PREFIX, caPem: server.caPem ?? "", credentials: { token: server.adminKey } },
      groupVersion,
    );
  });
  after(async () => {
    await Promise.all([server?.stop(), kube?.stop()]);
  });

  CASES.forEach((c, i) => {
    it(c.name, async () => {
      const n = `c${i}`;
      const [expected, actual] = await Promise.all([runCase(kubeSide, c, n), runCase(platformSide, c, n)]);
      const reason = known.get(c.name);
      if (reason === undefined) {
        const both = `platform: ${JSON.stringify(actual)}\nkube-apiserver: ${JSON.stringify(expected)}`;
        assert.deepEqual(actual, expected, `the platform answers otherwise than kube-apiserver\n${both}`);
      } else {
        assert.notDeepEqual(actual, expected, `listed as a difference (${reason}), but the answers agree: unlist it`);
      }
    });
  });

  // No kind of the platform has a list with a maxItems yet: the oracle's own kind has one, checked
  // by kube-apiserver as a CRD and by the platform's write pipeline (probe-kind.ts).
  it("a list past its maxItems: the platform's 422 is kube-apiserver's, whole", async () => {
    await kube.apply(JSON.stringify(probeCrd()));
    await kube.kubectl("wait", "--for=condition=Established", "--timeout=60s", `crd/${PROBE_COLLECTION}.${GROUP}`);
    const store = probeStore();
    const ctx = { user: { name: "oracle", subjectKind: "User" as const, groups: [], teams: [] }, warnings: [] };
    // Alone, and after an error of metadata (kube lists metadata's errors first).
    for (const body of [probe("too-many", { users: ["a", "b", "c"] }), probe("Bad_Name", { users: ["a", "b", "c"] })]) {
      const expected = await kubeSide.send({ method: "POST", path: PROBE_COLLECTION, body });
      const refused = await store.create(ctx, undefined, body, defaultWriteOptions("oracle")).then(
        () => assert.fail("the platform accepted a list past its maxItems"),
        (err: ApiError) => err.status,
      );
      assert.deepEqual(refused, expected.json);
    }
  });

  it("names every case once, and lists differences only of cases it has", () => {
    const names = CASES.map((c) => c.name);
    assert.deepEqual(
      names.filter((x, i) => names.indexOf(x) !== i),
      [],
    );
    assert.deepEqual(
      KNOWN_DIFFERENCES.map((d) => d.case).filter((x) => !names.includes(x)),
      [],
    );
  });

  it("docs/kubernetes-clients.md lists the same differences, with the same reasons", () => {
    assert.deepEqual(
      documentedDifferences(),
      KNOWN_DIFFERENCES.map((d) => ({ case: d.case, reason: d.reason })),
    );
  });
});

/**
 * Generates the CRDs from the platform's discovery and OpenAPI document, with the rules the
 * platform checks in code, and waits until kube serves them.
 */
async function installCrds(kube: KubeControlPlane, server: TestServer): Promise<void> {
  const discovery = await server.request("GET", GROUP_PATH);
  const index = await server.request("GET", `${API_PREFIX}/openapi/v3`);
  const document = await server.request("GET", index.json.paths[`apis/${GROUP}/${VERSION}`].serverRelativeURL);
  const crds = withRulesCheckedInCode(crdsFromPlatform(GROUP, VERSION, discovery.json.resources, document.json));
  await kube.apply(JSON.stringify({ apiVersion: "v1", kind: "List", items: crds }));
  await kube.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd", "--all");
}

/** The rows of the table under "Differences from kube-apiserver" in docs/kubernetes-clients.md. */
function documentedDifferences(): { case: string; reason: string }[] {
  const doc = readFileSync(new URL("../../docs/kubernetes-clients.md", import.meta.url), "utf8");
  const section = doc.split(/^## Differences from kube-apiserver$/m)[1]?.split(/^## /m)[0] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| case |"))
    .map((line) => {
      const [name = "", reason = ""] = line.slice(2, -2).split(" | ");
      return { case: name.replace(/^`|`$/g, ""), reason };
    });
}
