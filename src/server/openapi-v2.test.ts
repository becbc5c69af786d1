import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { API_PREFIX } from "../api/object.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { gnosticDocumentType } from "./openapi-v2-proto.js";
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DEPRECATED } from "./openapi-v2-route.js";

/**
 * GET /openapi/v2 as kube-apiserver serves it, JSON and protobuf. That kubectl up to 1.26
 * decodes and uses it (client-side validation, explain) is src/e2e/kubectl.test.ts with kubectl 1.20.
 */
describe("OpenAPI v2", () => {
  let server: TestServer;
  const path = `${API_PREFIX}/openapi/v2`;
  const USER = "platform.management.v1.User";

  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.stop();
  });

  it("JSON: one Swagger 2.0 document of every kind, from the schemas the server validates with", async () => {
    const res = await server.request("GET", path, { headers: { accept: "application/json" } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers["content-type"], "application/json");
    assert.equal(res.headers.vary, "Accept");
    assert.match(String(res.headers.etag), /^"[0-9A-F]{128}"$/);
    const doc = res.json;
    assert.equal(doc.swagger, "2.0");
    assert.equal(doc.basePath, API_PREFIX);
    const user = doc.definitions[USER];
    assert.deepEqual(user["x-kubernetes-group-version-kind"], [
      { group: "management.platform", version: "v1", kind: "User" },
    ]);
    assert.equal(user.properties.spec.properties.clusterRoles.type, "array");
    assert.equal(user.properties.spec.properties.clusterRoles["x-kubernetes-list-type"], "map");
    // Swagger 2.0 has no nullable, unions or components: a nullable field has no type.
    assert.equal(user.properties.metadata.properties.creationTimestamp.type, undefined);
    assert.doesNotMatch(res.text, /"nullable"|"anyOf"|#\/components\//);
    // fieldsV1 keeps any content: no type, so that kubectl does not check its keys.
    assert.equal(user.properties.metadata.properties.managedFields.items.properties.fieldsV1.type, undefined);

    const create = doc.paths["/apis/management.platform/v1/users"].post;
    assert.equal(create.operationId, "createUser");
    assert.equal(create["x-kubernetes-action"], "post");
    assert.deepEqual(create.parameters[0], {
      name: "body",
      in: "body",
      required: true,
      schema: { $ref: `#/definitions/${USER}` },
    });
    const patch = doc.paths["/apis/management.platform/v1/users/{name}"].patch;
    assert.ok(patch.consumes.includes("application/merge-patch+json"));
    assert.ok(!patch.consumes.includes("application/strategic-merge-patch+json"));
    assert.ok(patch.parameters.some((p: { name: string; type: string }) => p.name === "fieldValidation"));
    const secrets = doc.paths["/apis/management.platform/v1/namespaces/{namespace}/sharedsecrets"];
    assert.equal(secrets.parameters[0].in, "path");
    assert.equal(secrets.parameters[0].type, "string");
  });

  it("protobuf (gnostic's Document) in either spelling kubectl uses, with the same ETag", async () => {
    const json = await server.request("GET", path, { headers: { accept: "application/json" } });
    for (const accept of [OPENAPI_V2_PROTOBUF_DEPRECATED, `${OPENAPI_V2_PROTOBUF}, application/json`]) {
      const res = await server.request("GET", path, { headers: { accept } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers["content-type"], OPENAPI_V2_PROTOBUF);
      assert.equal(res.headers.etag, json.headers.etag);
      const doc = gnosticDocumentType().toObject(gnosticDocumentType().decode(res.body), {
        defaults: false,
      }) as {
        swagger: string;
        definitions: { additional_properties: Array<{ name: string; value: Record<string, unknown> }> };
      };
      assert.equal(doc.swagger, "2.0");
      const user = doc.definitions.additional_properties.find((d) => d.name === USER)?.value as {
        vendor_extension: Array<{ name: string; value: { yaml: string } }>;
        type: { value: string[] };
      };
      assert.deepEqual(user.type.value, ["object"]);
      const gvk = user.vendor_extension.find((e) => e.name === "x-kubernetes-group-version-kind");
      assert.deepEqual(JSON.parse(gvk?.value.yaml ?? "null"), [
        { group: "management.platform", version: "v1", kind: "User" },
      ]);
    }
  });

  it("304 for the ETag held, 406 for a form not served, 401 without credentials", async () => {
    const first = await server.request("GET", path, { headers: { accept: "*/*" } });
    assert.equal(first.status, 200);
    assert.equal(first.headers["content-type"], "application/json", "any form: JSON");
    const again = await server.request("GET", path, { headers: { "if-none-match": String(first.headers.etag) } });
    assert.equal(again.status, 304);
    const html = await server.request("GET", path, { headers: { accept: "text/html" } });
    assert.equal(html.status, 406, html.text);
    assert.equal(html.json.kind, "Status");
    const anonymous = await server.request("GET", path, { token: null });
    assert.equal(anonymous.status, 401);
  });
});
