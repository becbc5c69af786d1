import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isQuantityField } from "./quantity-fields.js";

describe("isQuantityField", () => {
  it("names the fields where a built-in kind keeps a quantity", () => {
    const deployment = ["spec", "template", "spec", "containers", "resources", "requests", "cpu"];
    assert.equal(isQuantityField("apps/v1", "Deployment", deployment), true);
    const claim = ["spec", "volumeClaimTemplates", "spec", "resources", "requests", "storage"];
    assert.equal(isQuantityField("apps/v1", "StatefulSet", claim), true);
    const volume = ["spec", "volumes", "emptyDir", "sizeLimit"];
    assert.equal(isQuantityField("v1", "Pod", volume), true);
    assert.equal(isQuantityField("v1", "ResourceQuota", ["spec", "hard", "requests.cpu"]), true);
    assert.equal(isQuantityField("v1", "LimitRange", ["spec", "limits", "maxLimitRequestRatio", "cpu"]), true);
    assert.equal(isQuantityField("v1", "PersistentVolume", ["spec", "capacity", "storage"]), true);
  });

  it("leaves out strings kept as written: other fields, and a kind of the same name in another group", () => {
    assert.equal(isQuantityField("v1", "ConfigMap", ["data", "cpu"]), false);
    assert.equal(isQuantityField("v1", "ResourceQuota", ["spec", "scopes"]), false);
    assert.equal(isQuantityField("v1", "LimitRange", ["spec", "limits", "type"]), false);
    assert.equal(isQuantityField("v1", "Pod", ["metadata", "annotations", "cpu"]), false);
    assert.equal(isQuantityField("example.com/v1", "ResourceQuota", ["spec", "hard", "cpu"]), false);
    assert.equal(isQuantityField("v1", "Pod", ["spec", "containers", "resources", "claims"]), false);
  });
});
