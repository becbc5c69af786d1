import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseForwardedPath } from "./forwarded-path.js";
import { type GatewayTarget, gatewayScopeAllows, scopeNamesCluster } from "./gateway-scope.js";
import { kubeRequestAttributes } from "./kube-request.js";

const prod: GatewayTarget = { kind: "cluster", cluster: "prod" };
const vc: GatewayTarget = { kind: "virtualcluster", project: "web", namespace: "p-web", name: "dev" };
const get = (path: string, method = "GET") => kubeRequestAttributes(method, parseForwardedPath(path));

describe("kube request attributes", () => {
  it("reads verb, group, resource, namespace, name and subresource from method and path", () => {
    assert.deepEqual(get("/api/v1/namespaces/a/pods/p/log?follow=true"), {
      verb: "get",
      apiGroup: "",
      resource: "pods",
      subresource: "log",
      namespace: "a",
      name: "p",
      resourceRequest: true,
    });
    assert.equal(get("/apis/apps/v1/deployments?watch=1").verb, "watch");
    assert.equal(get("/apis/apps/v1/deployments").apiGroup, "apps");
    assert.equal(get("/api/v1/namespaces/a/pods", "DELETE").verb, "deletecollection");
    assert.equal(get("/api/v1/namespaces/a/pods/p/exec?command=ls", "POST").subresource, "exec");
    assert.equal(get("/api/v1/namespaces/a").resource, "namespaces");
    assert.deepEqual(
      { resourceRequest: get("/version").resourceRequest, path: get("/version").path },
      { resourceRequest: false, path: "/version" },
    );
    assert.equal(get("/api").resourceRequest, false);
  });

  it("classifies the decoded segments, as kube-apiserver does", () => {
    const secrets = get("/api/v1/namespaces/a/%73ecrets");
    assert.deepEqual([secrets.resource, secrets.namespace, secrets.verb], ["secrets", "a", "list"]);
    // The deprecated watch paths: the verb is the segment, whatever the method.
    const watched = get("/api/v1/watch/namespaces/kube-system/secrets");
    assert.deepEqual([watched.verb, watched.resource, watched.namespace], ["watch", "secrets", "kube-system"]);
    // A namespace's own subresources are the namespace's.
    const status = get("/api/v1/namespaces/a/status", "PUT");
    assert.deepEqual(
      [status.resource, status.name, status.subresource, status.namespace],
      ["namespaces", "a", "status", "a"],
    );
    assert.deepEqual([get("/metrics").resourceRequest, get("/metrics").path], [false, "/metrics"]);
  });

  it("refuses, with 400, a path that two readers could split differently", () => {
    for (const path of [
      "/api%2Fv1/namespaces/kube-system/secrets",
      "/api/v1/namespaces%2fkube-system/secrets",
      "/api/v1/namespaces/a/../kube-system/secrets",
      "/api/v1/namespaces/a/%2e%2E/kube-system/secrets",
      "/api/v1/./namespaces/a/pods",
      "/api/v1/namespaces//secrets",
      "//api/v1/secrets",
      "//",
      "/api/v1/pods//",
      "/api/v1/%ZZ",
      "/api/v1/pods/%E0%A4%A",
      "/api/v1/secrets#x",
      "http://elsewhere/api/v1/secrets",
      "*",
    ]) {
      assert.throws(
        () => parseForwardedPath(path),
        (err: { code?: number }) => err.code === 400,
        `${path} is refused with 400`,
      );
    }
    assert.equal(parseForwardedPath("/api/v1/pods/").path, "/api/v1/pods/", "one trailing slash is kept");
    assert.equal(parseForwardedPath("/").segments.length, 0);
  });
});

describe("gateway scope", () => {
  it("an absent or empty scope allows everything", () => {
    assert.ok(gatewayScopeAllows(undefined, prod, get("/api/v1/pods")));
    assert.ok(gatewayScopeAllows({}, vc, get("/api/v1/pods")));
  });

  it("cluster rules: the cluster, the request targets, and the request itself", () => {
    const readPods = {
      rules: [{ cluster: "prod", verbs: ["get", "list"], resources: [{ group: "", resources: ["pods"] }] }],
    };
    assert.ok(gatewayScopeAllows(readPods, prod, get("/api/v1/namespaces/a/pods")));
    assert.ok(gatewayScopeAllows(readPods, prod, get("/api")), "discovery passes a rule that covers the cluster");
    for (const discovery of ["/api", "/api/v1", "/apis", "/apis/apps/v1", "/version", "/openapi/v3/apis/apps/v1"]) {
      assert.ok(
        gatewayScopeAllows({ rules: [{ cluster: "prod", verbs: ["list"] }] }, prod, get(discovery)),
        `${discovery} is discovery, read under any rule covering the cluster`,
      );
    }
    for (const other of ["/metrics", "/logs/", "/logs/kube-apiserver.log", "/debug/pprof/", "/healthz", "/"]) {
      assert.ok(!gatewayScopeAllows(readPods, prod, get(other)), `${other} needs a rule naming it in nonResourceURLs`);
    }
    assert.ok(!gatewayScopeAllows(readPods, prod, get("/api", "POST")), "discovery is read, not written");
    const metrics = { rules: [{ cluster: "prod", verbs: ["get"], nonResourceURLs: ["/metrics"] }] };
    assert.ok(gatewayScopeAllows(metrics, prod, get("/metrics")));
    assert.ok(!gatewayScopeAllows(metrics, prod, get("/logs/")));
    assert.ok(!gatewayScopeAllows(readPods, prod, get("/api/v1/namespaces/a/pods/p", "DELETE")));
    assert.ok(!gatewayScopeAllows(readPods, prod, get("/api/v1/namespaces/a/secrets")));
    assert.ok(
      !gatewayScopeAllows(readPods, prod, get("/api/v1/namespaces/a/pods/p/exec", "POST")),
      "subresources need naming",
    );
    assert.ok(!gatewayScopeAllows(readPods, { kind: "cluster", cluster: "staging" }, get("/api/v1/namespaces/a/pods")));
    assert.ok(
      !gatewayScopeAllows(readPods, vc, get("/api/v1/namespaces/a/pods")),
      "a cluster rule is no virtual cluster rule",
    );
    assert.ok(gatewayScopeAllows({ rules: [{ requestTargets: ["Cluster"] }] }, prod, get("/api/v1/pods")));
    assert.ok(!gatewayScopeAllows({ rules: [{ requestTargets: ["Management"] }] }, prod, get("/api/v1/pods")));
    assert.ok(
      gatewayScopeAllows({ rules: [{ cluster: "*", namespaces: ["a"] }] }, prod, get("/api/v1/namespaces/a/pods")),
    );
    assert.ok(
      !gatewayScopeAllows({ rules: [{ cluster: "*", namespaces: ["a"] }] }, prod, get("/api/v1/namespaces/b/pods")),
    );
  });

  it("virtual clusters: projects, virtualClusters, and rules naming them", () => {
    assert.ok(gatewayScopeAllows({ projects: [{ project: "web" }] }, vc, get("/api/v1/pods")));
    assert.ok(
      !gatewayScopeAllows({ projects: [{ project: "web" }] }, prod, get("/api/v1/pods")),
      "projects reach no cluster",
    );
    assert.ok(
      gatewayScopeAllows({ virtualClusters: [{ project: "web", virtualCluster: "dev" }] }, vc, get("/api/v1/pods")),
    );
    assert.ok(
      !gatewayScopeAllows({ virtualClusters: [{ project: "web", virtualCluster: "prod" }] }, vc, get("/api/v1/pods")),
    );
    assert.ok(gatewayScopeAllows({ rules: [{ virtualClusters: [{ name: "dev" }] }] }, vc, get("/api/v1/pods")));
    assert.ok(!gatewayScopeAllows({ rules: [{ virtualClusters: [{ name: "other" }] }] }, vc, get("/api/v1/pods")));
    assert.ok(!gatewayScopeAllows({ allowPlatformCli: true }, vc, get("/api/v1/pods")));
  });

  it("the agent's check: a rule names exactly this cluster", () => {
    assert.ok(scopeNamesCluster({ rules: [{ cluster: "prod" }] }, "prod"));
    assert.ok(!scopeNamesCluster({ rules: [{ cluster: "staging" }] }, "prod"));
    assert.ok(!scopeNamesCluster(undefined, "prod"));
  });
});
