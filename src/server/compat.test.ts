import assert from "node:assert/strict";
import { request as httpsRequest } from "node:https";
import { after, before, describe, it } from "node:test";
import { API_PREFIX } from "../api/object.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { AGGREGATED_DISCOVERY_V2 } from "./discovery.js";

/** Wire details kubectl and client libraries depend on: discovery, reviews, OpenAPI, Table watches. */

/** Protobuf length-delimited field (all the review messages need). */
function field(n: number, value: Buffer | string): Buffer {
  const bytes = typeof value === "string" ? Buffer.from(value) : value;
  if (bytes.length > 127) throw new Error("test helper handles short fields only");
  return Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes]);
}

describe("client compatibility endpoints", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.stop();
  });

  it("aggregated discovery v2: exact media type, ETag and 304", async () => {
    const accept = `${AGGREGATED_DISCOVERY_V2},application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json`;
    const res = await server.request("GET", `${API_PREFIX}/apis`, { headers: { accept } });
    assert.equal(res.status, 200);
    assert.equal(res.headers["content-type"], AGGREGATED_DISCOVERY_V2);
    assert.equal(res.json.kind, "APIGroupDiscoveryList");
    const group = res.json.items.find((g: { metadata: { name: string } }) => g.metadata.name === "management.platform");
    const clusters = group.versions[0].resources.find((r: { resource: string }) => r.resource === "clusters");
    assert.equal(clusters.scope, "Cluster");
    assert.deepEqual(clusters.subresources[0].subresource, "status");
    assert.deepEqual(clusters.categories, ["platform"]);
    const secrets = group.versions[0].resources.find((r: { resource: string }) => r.resource === "sharedsecrets");
    assert.equal(secrets.scope, "Namespaced");
    const names = res.json.items.map((g: { metadata: { name: string } }) => g.metadata.name);
    assert.ok(names.includes("authorization.k8s.io") && names.includes("authentication.k8s.io"), names.join());

    const etag = res.headers.etag as string;
    assert.match(etag, /^"[0-9a-f]+"$/);
    const cached = await server.request("GET", `${API_PREFIX}/apis`, { headers: { accept, "if-none-match": etag } });
    assert.equal(cached.status, 304);
    assert.equal(cached.text, "");
    const stale = await server.request("GET", `${API_PREFIX}/apis`, { headers: { accept, "if-none-match": '"x"' } });
    assert.equal(stale.status, 200);

    const legacy = await server.request("GET", `${API_PREFIX}/apis`);
    assert.equal(legacy.json.kind, "APIGroupList");
    // The core group serves Events (src/events) and the read-only Namespaces (server/namespaces.ts).
    const core = await server.request("GET", `${API_PREFIX}/api`);
    assert.deepEqual(core.json.versions, ["v1"]);
    const coreAggregated = await server.request("GET", `${API_PREFIX}/api`, { headers: { accept } });
    assert.equal(coreAggregated.headers["content-type"], AGGREGATED_DISCOVERY_V2);
    assert.deepEqual(
      JSON.parse(coreAggregated.text).items[0].versions[0].resources.map((r: { resource: string }) => r.resource),
      ["events", "namespaces"],
    );
    const list = await server.request("GET", GROUP_PATH);
    assert.equal(list.json.kind, "APIResourceList");
    assert.ok(list.json.resources.some((r: { name: string }) => r.name === "clusters/status"));
    const unauthenticated = await server.request("GET", `${API_PREFIX}/apis`, { token: null });
    assert.equal(unauthenticated.status, 401);
  });

  it("SelfSubjectAccessReview in JSON and protobuf, SelfSubjectReview", async () => {
    const ssar = await server.request("POST", `${API_PREFIX}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
      body: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { verb: "create", group: "management.platform", resource: "users" } },
      },
    });
    assert.equal(ssar.status, 201, ssar.text);
    assert.equal(ssar.json.status.allowed, true);
    assert.equal(ssar.json.spec.resourceAttributes.resource, "users");

    const neither = await server.request(
      "POST",
      `${API_PREFIX}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`,
      {
        body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: {} },
      },
    );
    assert.equal(neither.status, 422);

    // What kubectl's typed client sends: the k8s protobuf envelope around the review.
    const attrs = Buffer.concat([field(2, "get"), field(3, "management.platform"), field(5, "teams"), field(7, "t1")]);
    const review = field(2, field(1, attrs));
    const envelope = Buffer.concat([
      Buffer.from("k8s\0", "binary"),
      field(1, Buffer.concat([field(1, "authorization.k8s.io/v1"), field(2, "SelfSubjectAccessReview")])),
      field(2, review),
    ]);
    const proto = await server.request("POST", `${API_PREFIX}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
      raw: envelope,
      contentType: "application/vnd.kubernetes.protobuf",
      headers: { accept: "application/vnd.kubernetes.protobuf,application/json" },
    });
    assert.equal(proto.status, 201, proto.text);
    assert.deepEqual(proto.json.spec.resourceAttributes, {
      verb: "get",
      group: "management.platform",
      resource: "teams",
      name: "t1",
    });
    assert.equal(proto.json.status.allowed, true);

    const ssr = await server.request("POST", `${API_PREFIX}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    });
    assert.equal(ssr.status, 201, ssr.text);
    assert.equal(ssr.json.status.userInfo.username, "admin");
    assert.ok(ssr.json.status.userInfo.groups.includes("system:authenticated"));
  });

  it("OpenAPI v3: index, schemas with GVK and list types, PATCH declaring fieldValidation", async () => {
    const index = await server.request("GET", `${API_PREFIX}/openapi/v3`);
    assert.equal(index.status, 200);
    const entry = index.json.paths["apis/management.platform/v1"];
    assert.match(
      entry.serverRelativeURL,
      /^\/kubernetes\/management\/openapi\/v3\/apis\/management\.platform\/v1\?hash=[0-9A-F]+$/,
    );
    const doc = await server.request("GET", entry.serverRelativeURL);
    assert.equal(doc.status, 200);
    assert.equal(doc.headers["cache-control"], "public, immutable");
    const user = doc.json.components.schemas["platform.management.v1.User"];
    assert.deepEqual(user["x-kubernetes-group-version-kind"], [
      { group: "management.platform", version: "v1", kind: "User" },
    ]);
    const roles = user.properties.spec.properties.clusterRoles;
    assert.match(roles.description, /Cluster roles granted/);
    assert.equal(roles["x-kubernetes-list-type"], "map");
    assert.deepEqual(roles["x-kubernetes-list-map-keys"], ["name"]);
    assert.equal(user.properties.metadata.properties.labels.additionalProperties.type, "string");
    assert.equal(user.properties.metadata.properties.creationTimestamp.nullable, true);

    const patch = doc.json.paths["/apis/management.platform/v1/users/{name}"].patch;
    assert.equal(patch["x-kubernetes-group-version-kind"].kind, "User");
    assert.ok(
      patch.parameters.some((p: { name: string; in: string }) => p.name === "fieldValidation" && p.in === "query"),
    );
    // No strategic merge: kubectl apply then computes a JSON merge patch.
    assert.ok(!Object.keys(patch.requestBody.content).includes("application/strategic-merge-patch+json"));
    assert.ok(doc.json.paths["/apis/management.platform/v1/namespaces/{namespace}/sharedsecrets/{name}"]);

    const etag = doc.headers.etag as string;
    const again = await server.request("GET", entry.serverRelativeURL, { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
    assert.equal((await server.request("GET", `${API_PREFIX}/openapi/v3/apis/nope/v1`)).status, 404);
  });

  it("a quiet watch sends its headers before any event", { timeout: 20_000 }, async () => {
    const list = await server.request("GET", `${GROUP_PATH}/teams`);
    const rv = list.json.metadata.resourceVersion;
    // With a resourceVersion there are no initial events, and no timeout ends the stream:
    // the response must begin anyway (clients wait for it before they count the watch as open).
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        new URL(`${GROUP_PATH}/teams?watch=true&resourceVersion=${rv}`, server.url),
        { headers: { authorization: `Bearer ${server.adminKey}` }, ca: server.caPem },
        (res) => {
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on("error", reject);
      req.end();
    });
    assert.equal(status, 200);
  });
});
