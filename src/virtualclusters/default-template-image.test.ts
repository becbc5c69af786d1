import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  GROUP_PATH,
  startTestServer,
  type TestResponse,
  type TestServer,
  userWithKey,
} from "../testing/test-server.js";

const API = "management.platform/v1";
const SHIPPED_IMAGE = "ghcr.io/loft-sh/vcluster-oss";
const MIRROR = "registry.example.com/mirror/vcluster-oss";
/** The default template's `image` parameter: the second of version 1.0.0's (version, image, serviceType, config). */
const IMAGE_OPTIONS = "/spec/versions/0/parameters/1/options";

/**
 * The default template's `image` parameter (docs/virtual-clusters.md, "The default template"):
 * the syncer it names runs with the rights to read the namespace's Secrets and make pods there,
 * so who may create an instance picks one of the images the template lists, and only who may
 * write the template's versions lists another. `dev` is a member of project `web` with `use` on
 * cluster `c1`; the admin writes templates.
 */
describe("the default template's image is one the template lists", () => {
  let server: TestServer;
  let dev: string;

  const instance = (name: string, parameters?: Record<string, string>) =>
    server.request("POST", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`, {
      token: dev,
      body: {
        apiVersion: API,
        kind: "VirtualClusterInstance",
        metadata: { name },
        spec: {
          clusterRef: { cluster: "c1" },
          templateRef: { name: "default" },
          ...(parameters ? { parameters } : {}),
        },
      },
    });
  const addImage = (image: string, token?: string) =>
    server.request("PATCH", `${GROUP_PATH}/virtualclustertemplates/default`, {
      token,
      body: [{ op: "add", path: `${IMAGE_OPTIONS}/-`, value: image }],
      contentType: "application/json-patch+json",
    });
  const created = (res: TestResponse) => assert.equal(res.status, 201, res.text);
  const refusedImage = (res: TestResponse, image: string) => {
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.reason, "Invalid");
    assert.deepEqual(res.json.details.causes, [
      {
        reason: "FieldValueNotSupported",
        field: "spec.parameters.image",
        message: `Unsupported value: "${image}": supported values: ${JSON.stringify(SHIPPED_IMAGE)}`,
      },
    ]);
  };

  before(async () => {
    server = await startTestServer();
    dev = await userWithKey(server, "dev");
    created(
      await server.request("POST", `${GROUP_PATH}/clusters`, {
        body: { metadata: { name: "c1" }, spec: { local: true, access: [{ users: ["dev"], verbs: ["use"] }] } },
      }),
    );
    created(
      await server.request("POST", `${GROUP_PATH}/projects`, {
        body: { metadata: { name: "web" }, spec: { members: [{ kind: "User", name: "dev" }] } },
      }),
    );
  });
  after(() => server?.stop());

  it("an image the template does not list is 422 naming the ones it does, on create and on update", async () => {
    refusedImage(await instance("elsewhere", { image: "attacker.example/syncer" }), "attacker.example/syncer");
    created(await instance("plain"));
    const changed = await server.request("PATCH", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/plain`, {
      token: dev,
      body: { spec: { parameters: { image: "attacker.example/syncer" } } },
      contentType: "application/merge-patch+json",
    });
    refusedImage(changed, "attacker.example/syncer");
  });

  it("the listed image is accepted, named or by default", async () => {
    created(await instance("named", { image: SHIPPED_IMAGE, version: "0.21.1" }));
    const stored = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/plain`, {
      token: dev,
    });
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.json.spec.parameters, undefined, "the default image, given by none");
  });

  it("only who may write the template's versions lists another image; then members may choose it", async () => {
    const refused = await addImage(MIRROR, dev);
    assert.equal(refused.status, 403, refused.text);
    refusedImage(await instance("mirrored", { image: MIRROR }), MIRROR);

    const listed = await addImage(MIRROR);
    assert.equal(listed.status, 200, listed.text);
    created(await instance("mirrored", { image: MIRROR }));
  });
});
