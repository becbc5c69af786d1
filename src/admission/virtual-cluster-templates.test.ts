// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the template references in these objects are written ${...}
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { accessKey, KUBECTL } from "../testing/gateway-fixture.js";
import {
  GROUP_PATH,
  startTestServer,
  type TestResponse,
  type TestServer,
  userWithKey,
} from "../testing/test-server.js";

const API = "management.platform/v1";
const VCT = "VirtualClusterTemplate";

/** A template whose objects are one ConfigMap naming its parameters (what is deployed is not under test here). */
function template(name: string, versions: Array<{ version: string; parameters?: unknown[] }>, access?: unknown[]) {
  return {
    apiVersion: API,
    kind: VCT,
    metadata: { name },
    spec: {
      versions: versions.map((v) => ({
        ...v,
        objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${instance.name}-settings" } }],
      })),
      ...(access ? { access } : {}),
    },
  };
}

const INLINE = {
  parameters: [{ name: "greeting", default: "hello" }],
  objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "hi" }, data: { say: "${params.greeting}" } }],
};

/** The field paths of a 422's causes. */
function fieldsOf(res: TestResponse): string[] {
  assert.equal(res.status, 422, res.text);
  return (res.json.details?.causes ?? []).map((c: { field: string }) => c.field);
}

/**
 * Templates on virtual cluster instances, as admission decides them (docs/virtual-clusters.md):
 * the caller's `use` on the template, the template's versions and parameters, the project's
 * allowedTemplates / requireTemplate / default, `administer` for an inline template, and who may
 * write a template's versions. `dev` is a member of every project with `use` on cluster c1.
 */
describe("virtual cluster templates at admission", () => {
  let server: TestServer;
  let dev: string;

  const post = (path: string, body: unknown, token?: string) =>
    server.request("POST", `${GROUP_PATH}/${path}`, { body, token });
  const patch = (path: string, body: unknown, token?: string) =>
    server.request("PATCH", `${GROUP_PATH}/${path}`, { body, token, contentType: "application/merge-patch+json" });
  const instance = (project: string, name: string, spec: Record<string, unknown>, token?: string) =>
    post(
      `namespaces/p-${project}/virtualclusterinstances`,
      {
        apiVersion: API,
        kind: "VirtualClusterInstance",
        metadata: { name },
        spec: { clusterRef: { cluster: "c1" }, ...spec },
      },
      token,
    );
  const created = async (res: Promise<TestResponse>) => {
    const r = await res;
    assert.equal(r.status, 201, r.text);
    return r.json;
  };

  before(async () => {
    server = await startTestServer();
    dev = await userWithKey(server, "dev");
    await created(
      post("clusters", {
        metadata: { name: "c1" },
        spec: { local: true, access: [{ users: ["dev"], verbs: ["use"] }] },
      }),
    );
    await created(
      post("clusters", {
        metadata: { name: "c3" },
        spec: { local: true, access: [{ users: ["dev"], verbs: ["use", "administer"] }] },
      }),
    );
    const members = [{ kind: "User", name: "dev" }];
    await created(post("projects", { metadata: { name: "open" }, spec: { members } }));
    await created(
      post("projects", {
        metadata: { name: "strict" },
        spec: { members, requireTemplate: true, allowedTemplates: [{ kind: VCT, name: "small", isDefault: true }] },
      }),
    );
    await created(
      post("projects", { metadata: { name: "star" }, spec: { members, allowedTemplates: [{ kind: VCT, name: "*" }] } }),
    );
    const replicas = { name: "replicas", type: "number", default: "1" };
    await created(
      post(
        "virtualclustertemplates",
        template(
          "small",
          [
            { version: "1.0.0", parameters: [replicas] },
            {
              version: "2.0.0",
              parameters: [replicas, { name: "size", default: "small", options: ["small", "large"] }],
            },
          ],
          [{ users: ["dev"], verbs: ["get", "use", "update", "patch"] }],
        ),
      ),
    );
    await created(
      post(
        "virtualclustertemplates",
        template(
          "needs",
          [{ version: "1", parameters: [{ name: "team", required: true }] }],
          [{ users: ["*"], verbs: ["use"] }],
        ),
      ),
    );
    await created(post("virtualclustertemplates", template("secret", [{ version: "1" }])));
  });
  after(() => server?.stop());

  it("the default template is there after start, and everyone may use it: the instance is placed in a namespace of its own", async () => {
    const shown = await server.request("GET", `${GROUP_PATH}/virtualclustertemplates/default`, { token: dev });
    assert.equal(shown.status, 200, shown.text);
    const vc = await created(instance("open", "from-default", { templateRef: { name: "default" } }, dev));
    assert.deepEqual(vc.spec.clusterRef, {
      cluster: "c1",
      namespace: "p-open-v-from-default",
      virtualCluster: "from-default",
    });
    assert.ok(vc.status.caID);
  });

  it("naming a template needs use on it; whoever may not use it learns nothing of whether it exists", async () => {
    for (const name of ["secret", "no-such-template"]) {
      const res = await instance("open", "refused", { templateRef: { name } }, dev);
      assert.equal(res.status, 403, res.text);
      assert.match(
        res.json.message,
        /User "dev" cannot use resource "virtualclustertemplates" .*which spec\.templateRef\.name names/,
      );
    }
    assert.deepEqual(fieldsOf(await instance("open", "refused", { templateRef: { name: "no-such-template" } })), [
      "spec.templateRef.name",
    ]);
    await created(instance("open", "admins-may", { templateRef: { name: "secret" } }));
  });

  it("a version is pinned or follows the newest; one the template does not have is 422 listing those it has", async () => {
    const pinned = await created(instance("open", "pinned", { templateRef: { name: "small", version: "1.0.0" } }, dev));
    assert.equal(pinned.spec.templateRef.version, "1.0.0");
    // size is a parameter of 2.0.0 only: following the newest takes it, 1.0.0 does not know it.
    await created(
      instance(
        "open",
        "newest",
        { templateRef: { name: "small", version: "latest" }, parameters: { size: "large" } },
        dev,
      ),
    );
    assert.deepEqual(
      fieldsOf(
        await instance(
          "open",
          "old",
          { templateRef: { name: "small", version: "1.0.0" }, parameters: { size: "large" } },
          dev,
        ),
      ),
      ["spec.parameters.size"],
    );
    const missing = await instance("open", "missing", { templateRef: { name: "small", version: "9.9" } }, dev);
    assert.deepEqual(fieldsOf(missing), ["spec.templateRef.version"]);
    assert.match(missing.json.message, /its versions: 1\.0\.0, 2\.0\.0/);
    assert.deepEqual(fieldsOf(await instance("open", "odd", { templateRef: { name: "small", version: "one" } }, dev)), [
      "spec.templateRef.version",
    ]);
  });

  it("parameters are checked against the version: each problem a cause naming the parameter", async () => {
    const res = await instance(
      "open",
      "bad-params",
      { templateRef: { name: "small" }, parameters: { replicas: "many", size: "huge", colour: "blue" } },
      dev,
    );
    assert.deepEqual(fieldsOf(res).sort(), [
      "spec.parameters.colour",
      "spec.parameters.replicas",
      "spec.parameters.size",
    ]);
    assert.match(res.json.message, /spec\.parameters\.replicas: Invalid value: "many": must be a number/);
    const required = await instance("open", "no-team", { templateRef: { name: "needs" } }, dev);
    assert.deepEqual(fieldsOf(required), ["spec.parameters.team"]);
    assert.match(required.json.message, /the template requires parameter "team"/);
    assert.deepEqual(fieldsOf(await instance("open", "loose", { parameters: { a: "b" } }, dev)), ["spec.parameters"]);
  });

  it("a project's default template is used when none is named; its allowedTemplates and requireTemplate hold, for admins too", async () => {
    const defaulted = await created(instance("strict", "plain", {}, dev));
    assert.deepEqual(defaulted.spec.templateRef, { name: "small" });
    const other = await instance("strict", "other", { templateRef: { name: "default" } }, dev);
    assert.deepEqual(fieldsOf(other), ["spec.templateRef.name"]);
    assert.match(
      other.json.message,
      /template "default" is not in the allowedTemplates of project "strict" \(allowed: small\)/,
    );
    assert.deepEqual(fieldsOf(await instance("strict", "inline", { template: INLINE })), ["spec.template"]);
    // `*` allows every template.
    await created(instance("star", "any", { templateRef: { name: "default" } }, dev));
    await created(instance("star", "small", { templateRef: { name: "small", version: "1.0.0" } }, dev));
  });

  it("an inline template needs administer on the cluster it deploys to", async () => {
    const res = await instance("open", "inline", { template: INLINE }, dev);
    assert.equal(res.status, 403, res.text);
    assert.match(
      res.json.message,
      /User "dev" cannot administer resource "clusters" .*\(cluster "c1"\), which an inline spec\.template needs/,
    );
    await created(instance("open", "inline", { template: INLINE, clusterRef: { cluster: "c3" } }, dev));
    await created(instance("open", "inline-admin", { template: INLINE }));
    assert.deepEqual(fieldsOf(await instance("open", "both", { template: INLINE, templateRef: { name: "default" } })), [
      "spec.template",
    ]);
  });

  it("an imported instance has no template, and a deployed one needs a cluster and is named like its instance", async () => {
    assert.deepEqual(fieldsOf(await instance("open", "ext", { external: true, templateRef: { name: "default" } })), [
      "spec.templateRef",
    ]);
    assert.deepEqual(
      fieldsOf(await instance("open", "nowhere", { clusterRef: {}, templateRef: { name: "default" } })),
      ["spec.clusterRef.cluster"],
    );
    const renamed = await instance("open", "renamed", {
      clusterRef: { cluster: "c1", virtualCluster: "other" },
      templateRef: { name: "default" },
    });
    assert.deepEqual(fieldsOf(renamed), ["spec.clusterRef.virtualCluster"]);
  });

  it("rules that changed later do not freeze an instance; changing its template or parameters asks again", async () => {
    await created(instance("star", "kept", { templateRef: { name: "small", version: "2.0.0" } }, dev));
    const narrowed = await patch("projects/star", { spec: { allowedTemplates: [{ kind: VCT, name: "default" }] } });
    assert.equal(narrowed.status, 200, narrowed.text);
    const path = "namespaces/p-star/virtualclusterinstances/kept";
    const renamed = await patch(path, { spec: { displayName: "Still mine" } }, dev);
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(fieldsOf(await patch(path, { spec: { parameters: { replicas: "2" } } }, dev)), [
      "spec.templateRef.name",
    ]);
    const moved = await patch(
      path,
      { spec: { templateRef: { name: "default", version: null }, parameters: null } },
      dev,
    );
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(fieldsOf(await patch(path, { spec: { parameters: { serviceType: "Everywhere" } } }, dev)), [
      "spec.parameters.serviceType",
    ]);
  });

  it("writing a template's versions needs administer on every cluster; its other fields need only update", async () => {
    const relabel = await patch("virtualclustertemplates/small", { spec: { displayName: "Small" } }, dev);
    assert.equal(relabel.status, 200, relabel.text);
    const versions = await patch(
      "virtualclustertemplates/small",
      { spec: { versions: [{ version: "3", ...INLINE }] } },
      dev,
    );
    assert.equal(versions.status, 403, versions.text);
    assert.match(
      versions.json.message,
      /cannot administer resource "clusters" .*\(every cluster\), which writing a template's versions needs/,
    );
    // The admin, through a key that may write templates but administers no cluster.
    const templatesOnly = await accessKey(server, "admin", {
      rules: [{ verbs: ["*"], resources: [{ group: "management.platform", resources: ["virtualclustertemplates"] }] }],
    });
    const made = await post("virtualclustertemplates", template("mine", [{ version: "1" }]), templatesOnly);
    assert.equal(made.status, 403, made.text);
    assert.equal(
      (await server.request("GET", `${GROUP_PATH}/virtualclustertemplates/small`)).json.spec.versions.length,
      2,
    );
  });

  it("shapes a template or a project cannot have are 422", async () => {
    assert.deepEqual(fieldsOf(await post("virtualclustertemplates", template("latest", [{ version: "latest" }]))), [
      "spec.versions[0].version",
    ]);
    assert.deepEqual(
      fieldsOf(await post("virtualclustertemplates", template("twice", [{ version: "1" }, { version: "1.0" }]))),
      ["spec.versions[1].version"],
    );
    assert.deepEqual(fieldsOf(await post("virtualclustertemplates", template("none", []))), ["spec.versions"]);
    const project = (allowedTemplates: unknown[]) =>
      post("projects", { metadata: { name: "shapes" }, spec: { allowedTemplates } });
    assert.deepEqual(
      fieldsOf(
        await project([
          { kind: VCT, name: "a", isDefault: true },
          { kind: VCT, name: "b", isDefault: true },
          { kind: VCT, name: "*", isDefault: true },
          { kind: "SpaceTemplate", name: "c" },
        ]),
      ),
      ["spec.allowedTemplates[1].isDefault", "spec.allowedTemplates[2].isDefault", "spec.allowedTemplates[3].kind"],
    );
  });

  it("kubectl lists templates with their newest version", async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        KUBECTL,
        ["--kubeconfig", server.kubeconfig(dev), "get", "vct"],
        { timeout: 60_000 },
        (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)),
      ),
    );
    assert.match(out, /^NAME\s+LATEST\s+AGE$/m);
    assert.match(out, /^default\s+1\.0\.0\s/m);
    assert.match(out, /^small\s+2\.0\.0\s/m);
    assert.doesNotMatch(out, /^secret\s/m, "dev sees only the templates it may get");
  });
});
