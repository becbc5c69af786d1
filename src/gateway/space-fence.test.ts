import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseForwardedPath } from "./forwarded-path.js";
import { type GatewayTarget, gatewayScopeAllows } from "./gateway-scope.js";
import { kubeRequestAttributes } from "./kube-request.js";
import { outsideSpace } from "./space-fence.js";

const req = (path: string, method = "GET") => kubeRequestAttributes(method, parseForwardedPath(path));
const fence = (path: string, method = "GET") => outsideSpace(req(path, method), "team-a");
const space: GatewayTarget = { kind: "space", project: "web", namespace: "p-web", name: "dev" };

describe("a space's gateway path reaches only its namespace", () => {
  it("allows requests in the namespace, watches and upgrades included, and the namespace itself read", () => {
    for (const [path, method] of [
      ["/api/v1/namespaces/team-a/configmaps", "POST"],
      ["/api/v1/namespaces/team-a/configmaps/c", "DELETE"],
      ["/apis/apps/v1/namespaces/team-a/deployments?watch=true", "GET"],
      ["/api/v1/watch/namespaces/team-a/pods", "GET"],
      ["/api/v1/namespaces/team-a/pods/p/exec?command=ls", "POST"],
      ["/api/v1/namespaces/team-a", "GET"],
    ] as const) {
      assert.equal(fence(path, method), undefined, `${method} ${path}`);
    }
  });

  it("allows discovery, /version, the OpenAPI documents and the self reviews", () => {
    for (const path of ["/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version", "/openapi/v3/apis"]) {
      assert.equal(fence(path), undefined, path);
    }
    assert.equal(fence("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "POST"), undefined);
    assert.equal(fence("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", "POST"), undefined);
    assert.equal(fence("/apis/authentication.k8s.io/v1/selfsubjectreviews", "POST"), undefined);
  });

  it("refuses other namespaces, cluster-wide resources, writes to the namespace and other paths", () => {
    const refused: Array<[string, string, RegExp]> = [
      ["/api/v1/namespaces/kube-system/secrets", "GET", /"kube-system" is not the space's namespace "team-a"/],
      ["/api/v1/watch/namespaces/kube-system/pods", "GET", /"kube-system"/],
      ["/api/v1/namespaces/other/pods/p/exec?command=ls", "POST", /"other"/],
      ["/api/v1/secrets", "GET", /cluster-wide requests \(secrets\)/],
      ["/api/v1/nodes", "GET", /cluster-wide/],
      ["/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "POST", /cluster-wide/],
      ["/apis/authorization.k8s.io/v1/subjectaccessreviews", "POST", /cluster-wide/],
      ["/api/v1/namespaces", "GET", /own namespace/],
      ["/api/v1/namespaces/other", "GET", /own namespace/],
      ["/api/v1/namespaces/team-a", "DELETE", /own namespace/],
      ["/api/v1/namespaces/team-a", "PATCH", /own namespace/],
      ["/api/v1/namespaces/team-a/finalize", "PUT", /own namespace/],
      ["/api/v1/namespaces/team-a/status", "GET", /own namespace/],
      ["/api/v1/watch/namespaces/team-a", "GET", /own namespace/],
      ["/metrics", "GET", /not part of the space/],
      ["/logs/", "GET", /not part of the space/],
      ["/version", "POST", /not part of the space/],
    ];
    for (const [path, method, why] of refused) assert.match(fence(path, method) ?? "", why, `${method} ${path}`);
  });
});

describe("key scopes on a space's gateway path", () => {
  const allows = (scope: object, path = "/api/v1/namespaces/team-a/pods") =>
    gatewayScopeAllows(scope, space, req(path));

  it("reaches the space through spaces naming it, or projects naming its project", () => {
    assert.equal(allows({ spaces: [{ project: "web", space: "dev" }] }), true);
    assert.equal(allows({ spaces: [{ project: "web", space: "*" }] }), true);
    assert.equal(allows({ spaces: [{ project: "*", space: "dev" }] }), true);
    assert.equal(allows({ projects: [{ project: "web" }] }), true);
    assert.equal(allows({}), true, "a scope restricting nothing");
  });

  it("refuses another space, another project, virtual clusters, rules and the CLI exception", () => {
    assert.equal(allows({ spaces: [{ project: "web", space: "prod" }] }), false);
    assert.equal(allows({ spaces: [{ project: "ops", space: "dev" }] }), false);
    assert.equal(allows({ projects: [{ project: "ops" }] }), false);
    assert.equal(allows({ virtualClusters: [{ project: "web", virtualCluster: "dev" }] }), false);
    assert.equal(allows({ rules: [{ namespaces: ["team-a"] }] }), false);
    assert.equal(allows({ rules: [{ cluster: "*" }] }), false);
    assert.equal(allows({ allowPlatformCli: true }), false);
  });

  it("a spaces entry reaches no cluster or virtual cluster path", () => {
    const scope = { spaces: [{ project: "web", space: "*" }] };
    const pods = req("/api/v1/namespaces/team-a/pods");
    assert.equal(gatewayScopeAllows(scope, { kind: "cluster", cluster: "prod" }, pods), false);
    const vc: GatewayTarget = { kind: "virtualcluster", project: "web", namespace: "p-web", name: "dev" };
    assert.equal(gatewayScopeAllows(scope, vc, pods), false);
  });
});
