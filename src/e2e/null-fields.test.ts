import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { API_PREFIX } from "../api/object.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * `null` in a field that takes no null is read as the field left out, as kube-apiserver reads
 * it (nil maps and slices in ObjectMeta, non-nullable nulls pruned from custom resources), on
 * every way a body comes in: create, replace, patches, the review kinds and the actions.
 */
describe("null in optional fields", () => {
  let server: TestServer;
  const teams = `${GROUP_PATH}/teams`;

  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.stop();
  });

  it("create: null metadata maps, optional spec fields and map values are left out", async () => {
    const res = await server.request("POST", teams, {
      body: {
        apiVersion: "management.platform/v1",
        kind: "Team",
        metadata: { name: "nulls", annotations: null, labels: null, finalizers: null, ownerReferences: null },
        spec: { users: null, groups: null, displayName: null, clusterRoles: null },
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.metadata.annotations, undefined);
    assert.equal(res.json.metadata.labels, undefined);
    assert.equal(res.json.spec.users, undefined);
    assert.equal(res.json.spec.displayName, undefined);
    // Dropped silently: a null is no unknown field, so Strict validation does not refuse it.
    assert.equal(res.headers.warning, undefined);
    const strict = await server.request("POST", `${teams}?fieldValidation=Strict`, {
      body: { metadata: { name: "nulls-strict", annotations: null }, spec: { users: null } },
    });
    assert.equal(strict.status, 201, strict.text);
  });

  it("replace and patches with nulls", async () => {
    const current = (await server.request("GET", `${teams}/nulls`)).json;
    const replaced = await server.request("PUT", `${teams}/nulls`, {
      body: { ...current, metadata: { ...current.metadata, annotations: null }, spec: { users: null } },
    });
    assert.equal(replaced.status, 200, replaced.text);
    const jsonPatch = await server.request("PATCH", `${teams}/nulls`, {
      body: [{ op: "add", path: "/spec/groups", value: null }],
      contentType: "application/json-patch+json",
    });
    assert.equal(jsonPatch.status, 200, jsonPatch.text);
    assert.equal(jsonPatch.json.spec.groups, undefined);
  });

  it("DeleteOptions with nulls", async () => {
    const created = await server.request("POST", teams, { body: { metadata: { name: "nulls-delete" }, spec: {} } });
    assert.equal(created.status, 201, created.text);
    const res = await server.request("DELETE", `${teams}/nulls-delete`, {
      body: {
        kind: "DeleteOptions",
        apiVersion: "v1",
        gracePeriodSeconds: null,
        propagationPolicy: null,
        preconditions: null,
      },
    });
    assert.equal(res.status, 200, res.text);
  });

  it("a null where a value is required is still refused, naming the field", async () => {
    const res = await server.request("POST", teams, {
      body: { metadata: { name: "nulls-bad" }, spec: { clusterRoles: [{ name: null }] } },
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.details.causes[0].field, "spec.clusterRoles[0].name");
  });

  it("a nullable field keeps its null", async () => {
    const res = await server.request("POST", teams, {
      body: { metadata: { name: "nulls-ts", creationTimestamp: null }, spec: {} },
    });
    assert.equal(res.status, 201, res.text);
    assert.match(res.json.metadata.creationTimestamp, /Z$/);
  });

  it("kubectl 1.20's SelfSubjectRulesReview with status.resourceRules null", async () => {
    const res = await server.request("POST", `${API_PREFIX}/apis/authorization.k8s.io/v1/selfsubjectrulesreviews`, {
      body: {
        kind: "SelfSubjectRulesReview",
        apiVersion: "authorization.k8s.io/v1",
        metadata: { creationTimestamp: null },
        spec: { namespace: "default" },
        status: { resourceRules: null, nonResourceRules: null, incomplete: false },
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.ok(res.json.status.resourceRules.length > 0, res.text);
  });

  it("the kubeconfig action reads a null certificateTTL as left out", async () => {
    await server.request("POST", `${GROUP_PATH}/projects`, { body: { metadata: { name: "np" }, spec: {} } });
    const created = await server.request("POST", `${GROUP_PATH}/namespaces/p-np/virtualclusterinstances`, {
      body: { metadata: { name: "vc" }, spec: {} },
    });
    assert.equal(created.status, 201, created.text);
    const res = await server.request("POST", `${GROUP_PATH}/namespaces/p-np/virtualclusterinstances/vc/kubeconfig`, {
      body: { spec: { certificateTTL: null } },
    });
    // Past the body: what is left (the instance is not running) is no complaint about the field.
    assert.doesNotMatch(res.text, /certificateTTL/, res.text);
  });
});
