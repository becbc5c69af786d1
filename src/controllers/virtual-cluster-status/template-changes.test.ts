import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../api/object.js";
import { redeployedByTemplateChange } from "./template-changes.js";

/** Which instances a change of their template redeploys (pure; the real cluster: template-redeploy.test.ts). */

const configMap = (data: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { data } });

function template(name: string, versions: Array<[string, string]>, description = ""): KubeObject {
  return {
    apiVersion: "management.platform/v1",
    kind: "VirtualClusterTemplate",
    metadata: { name },
    spec: { description, versions: versions.map(([version, data]) => ({ version, objects: [configMap(data)] })) },
  };
}

function instance(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: "management.platform/v1",
    kind: "VirtualClusterInstance",
    metadata: { name: "dev", namespace: "p-web" },
    spec: { clusterRef: { cluster: "prod" }, ...spec },
  };
}

const following = instance({ templateRef: { name: "tiny" } });
const followingLatest = instance({ templateRef: { name: "tiny", version: "latest" } });
const pinnedOne = instance({ templateRef: { name: "tiny", version: "1.0.0" } });
const pinnedShort = instance({ templateRef: { name: "tiny", version: "1" } });
const inline = instance({ template: { objects: [configMap("a")] } });
const otherTemplate = instance({ templateRef: { name: "small" } });

const ONE = template("tiny", [["1.0.0", "a"]]);
const ONE_TWO = template("tiny", [
  ["1.0.0", "a"],
  ["2.0.0", "b"],
]);

describe("which instances a template change redeploys", () => {
  it("a version added: those following the newest, not those pinned to another", () => {
    assert.equal(redeployedByTemplateChange(following, ONE, ONE_TWO), true);
    assert.equal(redeployedByTemplateChange(followingLatest, ONE, ONE_TWO), true);
    assert.equal(redeployedByTemplateChange(pinnedOne, ONE, ONE_TWO), false);
    assert.equal(redeployedByTemplateChange(pinnedShort, ONE, ONE_TWO), false);
  });

  it("a version added that is not the newest redeploys nobody", () => {
    const older = template("tiny", [
      ["1.0.0", "a"],
      ["2.0.0", "b"],
      ["1.5.0", "c"],
    ]);
    assert.equal(redeployedByTemplateChange(following, ONE_TWO, older), false);
    assert.equal(redeployedByTemplateChange(pinnedOne, ONE_TWO, older), false);
  });

  it("a version's objects edited: those pinned to it (by any spelling), and its followers when it is the newest", () => {
    const edited = template("tiny", [
      ["1.0.0", "a, edited"],
      ["2.0.0", "b"],
    ]);
    assert.equal(redeployedByTemplateChange(pinnedOne, ONE_TWO, edited), true);
    assert.equal(redeployedByTemplateChange(pinnedShort, ONE_TWO, edited), true);
    assert.equal(redeployedByTemplateChange(following, ONE_TWO, edited), false);
    const newestEdited = template("tiny", [
      ["1.0.0", "a"],
      ["2.0.0", "b, edited"],
    ]);
    assert.equal(redeployedByTemplateChange(following, ONE_TWO, newestEdited), true);
    assert.equal(redeployedByTemplateChange(pinnedOne, ONE_TWO, newestEdited), false);
  });

  it("a change that leaves every version as it was redeploys nobody", () => {
    const described = template(
      "tiny",
      [
        ["1.0.0", "a"],
        ["2.0.0", "b"],
      ],
      "now with a description",
    );
    for (const i of [following, pinnedOne]) assert.equal(redeployedByTemplateChange(i, ONE_TWO, described), false);
  });

  it("the template created or deleted: every instance naming it", () => {
    for (const i of [following, pinnedOne]) {
      assert.equal(redeployedByTemplateChange(i, undefined, ONE_TWO), true, "created");
      assert.equal(redeployedByTemplateChange(i, ONE_TWO, undefined), true, "deleted");
    }
  });

  it("never an instance of another template, nor one with an inline template", () => {
    for (const i of [inline, otherTemplate]) {
      assert.equal(redeployedByTemplateChange(i, ONE, ONE_TWO), false);
      assert.equal(redeployedByTemplateChange(i, undefined, ONE), false);
    }
  });
});
