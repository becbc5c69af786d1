import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

/**
 * SpaceTemplate and SpaceInstance as the API admits them (docs/spaces.md): the project's
 * allowedClusters, `use` on the cluster and on the template, the template's parameters, the
 * inline template's `administer` on the cluster, and no role inside the namespace beyond one's
 * own. alice and bob are plain members of project p1; alice may use clusters c1 and c3 and
 * template small; c2 is outside p1's allowedClusters.
 */
describe("SpaceInstance admission", () => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let carol: string;
  const SPACES = `${GROUP_PATH}/namespaces/p-p1/spaceinstances`;
  const space = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: "management.platform/v1",
    kind: "SpaceInstance",
    metadata: { name },
    spec,
  });
  const create = (body: unknown, token?: string) => server.request("POST", SPACES, { body, token });
  const fromSmall = (name: string, parameters: Record<string, string>, extra: Record<string, unknown> = {}) =>
    space(name, { clusterRef: { cluster: "c1" }, templateRef: { name: "small" }, parameters, ...extra });
  const causes = (res: { json: { details?: { causes?: Array<{ field: string; message: string }> } } }) =>
    (res.json.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`).join("\n");

  before(async () => {
    server = await startTestServer();
    alice = await userWithKey(server, "alice");
    bob = await userWithKey(server, "bob");
    carol = await userWithKey(server, "carol");
    for (const name of ["c1", "c2", "c3"]) {
      await postObject(server, "clusters", {
        metadata: { name },
        spec: { local: true, access: [{ verbs: ["use"], users: name === "c3" ? ["bob"] : ["alice", "bob"] }] },
      });
    }
    await postObject(server, "projects", {
      metadata: { name: "p1" },
      spec: {
        allowedClusters: [{ name: "c1" }, { name: "c3" }],
        members: [
          { kind: "User", name: "alice" },
          { kind: "User", name: "bob" },
        ],
      },
    });
    await postObject(server, "spacetemplates", {
      metadata: { name: "small" },
      spec: {
        parameters: [
          { name: "pods", type: "number", required: true },
          { name: "tier", options: ["bronze", "silver"], default: "bronze" },
        ],
        template: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a space template placeholder, not JavaScript
          labels: { tier: "${params.tier}" },
          objects: [
            {
              apiVersion: "v1",
              kind: "ResourceQuota",
              metadata: { name: "quota" },
              // biome-ignore lint/suspicious/noTemplateCurlyInString: a space template placeholder, not JavaScript
              spec: { hard: { pods: "${params.pods}" } },
            },
          ],
        },
        access: [{ verbs: ["use"], users: ["alice", "bob"] }],
      },
    });
    await postObject(server, "spacetemplates", { metadata: { name: "admins-only" }, spec: {} });
  });
  after(() => server?.stop());

  it("a member creates a space from a template: owned by them, namespace named after it, held by the cleanup finalizer", async () => {
    const res = await create(fromSmall("one", { pods: "10" }), alice);
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.spec.owner, { user: "alice" });
    assert.deepEqual(res.json.spec.clusterRef, { cluster: "c1", namespace: "one" });
    assert.deepEqual(res.json.metadata.finalizers, ["management.platform/space-cleanup"]);
    assert.equal(res.json.metadata.ownerReferences[0].kind, "Project");
  });

  it("the cluster must be allowed by the project (422) and used by the caller (403)", async () => {
    const outside = await create(space("two", { clusterRef: { cluster: "c2" } }), alice);
    assert.equal(outside.status, 422, outside.text);
    assert.match(causes(outside), /spec.clusterRef.cluster: .*not in the allowedClusters of project "p1"/);
    const notUsed = await create(space("two", { clusterRef: { cluster: "c3" } }), alice);
    assert.equal(notUsed.status, 403, notUsed.text);
    assert.match(notUsed.json.message, /cannot use resource "clusters".*which spec.clusterRef.cluster names/);
    assert.equal((await create(space("two", { clusterRef: { cluster: "c3" } }), bob)).status, 201);
    const noProject = await server.request("POST", `${GROUP_PATH}/namespaces/p-nope/spaceinstances`, {
      body: space("x", { clusterRef: { cluster: "c1" } }),
    });
    assert.equal(noProject.status, 404, noProject.text);
  });

  it("the template must be one the caller may use (403) and that exists (422)", async () => {
    const forbidden = await create(
      space("three", { clusterRef: { cluster: "c1" }, templateRef: { name: "admins-only" } }),
      alice,
    );
    assert.equal(forbidden.status, 403, forbidden.text);
    assert.match(forbidden.json.message, /cannot use resource "spacetemplates".*spec.templateRef.name/);
    const missing = await create(space("three", { clusterRef: { cluster: "c1" }, templateRef: { name: "nope" } }));
    assert.equal(missing.status, 422, missing.text);
    assert.match(causes(missing), /spec.templateRef.name: .*no SpaceTemplate of this name exists/);
  });

  it("parameters are the template's, typed and within its options", async () => {
    for (const [parameters, want] of [
      [{}, /spec.parameters.pods: Required value/],
      [{ pods: "ten" }, /spec.parameters.pods: Invalid value: "ten": must be a number/],
      [{ pods: "1", tier: "gold" }, /spec.parameters.tier: Unsupported value: "gold"/],
      [{ pods: "1", colour: "red" }, /spec.parameters.colour: Unsupported value/],
    ] as const) {
      const res = await create(fromSmall("four", parameters), alice);
      assert.equal(res.status, 422, `${JSON.stringify(parameters)}: ${res.text}`);
      assert.match(causes(res), want);
    }
    const noTemplate = await create(space("four", { clusterRef: { cluster: "c1" }, parameters: { pods: "1" } }), alice);
    assert.equal(noTemplate.status, 422, noTemplate.text);
    assert.match(causes(noTemplate), /spec.parameters: Forbidden/);
  });

  it("an inline template needs administer on the cluster", async () => {
    const inline = space("five", {
      clusterRef: { cluster: "c1" },
      template: { objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" } }] },
    });
    const res = await create(inline, alice);
    assert.equal(res.status, 403, res.text);
    assert.match(
      res.json.message,
      /cannot administer resource "clusters".*\(cluster "c1"\), which an inline spec.template needs/,
    );
    assert.equal((await create(inline)).status, 201);
  });

  it("nobody gives a role inside the namespace above their own", async () => {
    const withRules = fromSmall(
      "six",
      { pods: "3" },
      { access: [{ verbs: ["get"], users: ["bob"], clusterRole: "edit" }] },
    );
    const created = await create(withRules, alice);
    assert.equal(created.status, 201, `the owner holds admin: ${created.text}`);
    const path = `${SPACES}/six`;
    const giveBob = (clusterRole: string) =>
      server.request("PATCH", path, {
        token: bob,
        contentType: "application/merge-patch+json",
        body: {
          spec: {
            access: [
              { verbs: ["get"], users: ["bob"], clusterRole: "edit" },
              { verbs: ["get"], users: ["bob"], clusterRole },
            ],
          },
        },
      });
    const up = await giveBob("admin");
    assert.equal(up.status, 403, up.text);
    assert.match(up.json.message, /cannot give clusterRole "admin" in the space's namespace: it holds "edit" there/);
    assert.equal((await giveBob("view")).status, 200);
    // On create, the rules being written do not count for their writer.
    const self = await create(
      space("seven", {
        owner: { user: "alice" },
        clusterRef: { cluster: "c1" },
        access: [{ verbs: ["get"], users: ["bob"], clusterRole: "admin" }],
      }),
      bob,
    );
    assert.equal(self.status, 403, self.text);
  });

  it("the owner reads and deletes their space without being a project member; others do not see it", async () => {
    const res = await create(space("carols", { owner: { user: "carol" }, clusterRef: { cluster: "c1" } }));
    assert.equal(res.status, 201, res.text);
    assert.equal((await server.request("GET", `${SPACES}/carols`, { token: carol })).status, 200);
    assert.equal((await server.request("GET", `${SPACES}/one`, { token: carol })).status, 403);
  });

  it("a template's objects need administer on every cluster; an access rule's update reaches the rest", async () => {
    await postObject(server, "spacetemplates", {
      metadata: { name: "editable" },
      spec: { description: "v1", access: [{ verbs: ["get", "patch"], users: ["carol"] }] },
    });
    const patch = (spec: unknown) =>
      server.request("PATCH", `${GROUP_PATH}/spacetemplates/editable`, {
        token: carol,
        contentType: "application/merge-patch+json",
        body: { spec },
      });
    assert.equal((await patch({ description: "v2" })).status, 200);
    const objects = await patch({ template: { labels: { a: "b" } } });
    assert.equal(objects.status, 403, objects.text);
    assert.match(
      objects.json.message,
      /cannot administer resource "clusters".*\(every cluster\), which writing a template's objects/,
    );
  });

  it("shapes: one of templateRef and template, known roles, immutable place, placeholders declared, no namespace on objects", async () => {
    const both = await create(
      space("eight", { clusterRef: { cluster: "c1" }, templateRef: { name: "small" }, template: {} }),
    );
    assert.equal(both.status, 422);
    assert.match(causes(both), /spec.template: Forbidden/);
    const role = await create(
      space("eight", {
        clusterRef: { cluster: "c1" },
        access: [{ verbs: ["get"], users: ["bob"], clusterRole: "cluster-admin" }],
      }),
    );
    assert.equal(role.status, 422);
    assert.match(causes(role), /spec.access\[0\].clusterRole: Unsupported value: "cluster-admin"/);
    const moved = await server.request("PATCH", `${SPACES}/one`, {
      contentType: "application/merge-patch+json",
      body: { spec: { clusterRef: { namespace: "elsewhere" } } },
    });
    assert.equal(moved.status, 422, moved.text);
    assert.match(causes(moved), /spec.clusterRef.namespace: .*field is immutable/);
    const badTemplate = await server.request("POST", `${GROUP_PATH}/spacetemplates`, {
      body: {
        metadata: { name: "bad" },
        spec: {
          parameters: [{ name: "n", type: "number", default: "x" }],
          template: {
            objects: [
              // biome-ignore lint/suspicious/noTemplateCurlyInString: a space template placeholder, not JavaScript
              { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${space.name}", namespace: "kube-system" } },
              {
                apiVersion: "v1",
                kind: "Namespace",
                metadata: { name: "x" },
                // biome-ignore lint/suspicious/noTemplateCurlyInString: a space template placeholder, not JavaScript
                data: { a: "${undeclared} $${literal}" },
              },
            ],
          },
        },
      },
    });
    assert.equal(badTemplate.status, 422, badTemplate.text);
    const text = causes(badTemplate);
    assert.match(text, /spec.parameters\[0\].default: Invalid value: "x": must be a number/);
    assert.match(text, /spec.template.objects\[0\].metadata.namespace: Forbidden/);
    assert.match(text, /spec.template.objects\[1\].kind: Forbidden/);
    assert.match(text, /spec.template.objects\[1\].data.a: Invalid value: .*unknown reference \$\{undeclared\}/);
    // ${space.name} is a built-in and $${literal} escaped: only ${undeclared} is refused.
    assert.equal(text.match(/unknown reference/g)?.length, 1, text);
  });
});
