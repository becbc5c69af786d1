import assert from "node:assert/strict";
import { networkInterfaces } from "node:os";
import { after, before, describe, it } from "node:test";
import {
  DIRECT_ENDPOINT_ANNOTATION,
  DIRECT_ENDPOINT_CA_ANNOTATION,
  INGRESS_SUFFIX_ANNOTATION,
  VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION,
} from "../api/endpoint-annotations.js";
import { createCertificateAuthority } from "../crypto/certificates.js";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

const VCI = "namespaces/p-web/virtualclusterinstances";
const MERGE = "application/merge-patch+json";

/** An address of this host's own interfaces that is neither loopback nor link-local. */
function ownAddress(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) {
      if (!a.internal && !a.address.startsWith("fe80")) return a.family === "IPv6" ? `[${a.address}]` : a.address;
    }
  }
  throw new Error("this host has no address besides loopback");
}

/**
 * Settings that steer other users' traffic or tokens (docs/security.md, "Endpoints other users' traffic and tokens follow") need
 * `administer` on the object, and their URLs are https and never local unless the server allows it.
 */
describe("endpoint settings", () => {
  let s: TestServer;
  let open: TestServer;
  const key: Record<string, string> = {};
  let caBase64: string;

  const request = (server: TestServer, method: string, path: string, body: unknown, token?: string) =>
    server.request(method, `${GROUP_PATH}/${path}`, {
      body,
      token,
      contentType: method === "PATCH" ? MERGE : undefined,
    });
  const annotate = (path: string, annotations: Record<string, string | null>, token?: string, server = s) =>
    request(server, "PATCH", path, { metadata: { annotations } }, token);
  const created = async (path: string, body: unknown) => {
    const r = await request(s, "POST", path, body);
    assert.equal(r.status, 201, r.text);
  };

  before(async () => {
    [s, open] = await Promise.all([startTestServer(), startTestServer({ allowLocalEndpoints: true })]);
    caBase64 = Buffer.from((await createCertificateAuthority("agent-ca", 1)).certPem).toString("base64");
    // alice: a plain member of web; carol: its admin member; ed: may edit cluster prod; ada: may administer it.
    for (const name of ["alice", "carol", "ed", "ada"]) key[name] = await userWithKey(s, name);
    await created("projects", {
      metadata: { name: "web" },
      spec: {
        members: [
          { kind: "User", name: "alice" },
          { kind: "User", name: "carol", clusterRole: "platform-management-admin" },
        ],
      },
    });
    await created(VCI, { metadata: { name: "vc" }, spec: {} });
    // lab: alice administers it (admin member), while in web she is a plain member.
    await created("projects", {
      metadata: { name: "lab" },
      spec: { members: [{ kind: "User", name: "alice", clusterRole: "platform-management-admin" }] },
    });
    for (const name of ["prod-kubeconfig", "other-kubeconfig"]) {
      await created("namespaces/platform/sharedsecrets", {
        metadata: { name },
        spec: { data: { config: "eA==" }, access: [{ verbs: ["get"], users: ["ed"] }] },
      });
    }
    await created("clusters", {
      metadata: { name: "prod" },
      spec: {
        config: { secretName: "prod-kubeconfig" },
        access: [
          { verbs: ["get", "update", "patch"], users: ["ed"] },
          { verbs: ["get", "update", "patch", "administer"], users: ["ada"] },
        ],
      },
    });
    await created("clusters", { metadata: { name: "values" }, spec: { local: true } });
    await request(open, "POST", "clusters", { metadata: { name: "values" }, spec: { local: true } });
  });
  after(async () => {
    await Promise.all([s?.stop(), open?.stop()]);
  });

  describe("who may set them", () => {
    it("a plain project member may not point an instance somewhere, nor create one pointed", async () => {
      const r = await annotate(
        `${VCI}/vc`,
        { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: "https://vc.example.com" },
        key.alice,
      );
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.reason, "Forbidden");
      assert.match(
        r.json.message,
        /User "alice" cannot administer resource "virtualclusterinstances" .* in the namespace "p-web", which setting metadata\.annotations\[management\.platform\/virtual-cluster-endpoint\] needs/,
      );
      const fresh = await request(
        s,
        "POST",
        VCI,
        {
          metadata: {
            name: "pointed",
            annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: "https://vc.example.com" },
          },
          spec: {},
        },
        key.alice,
      );
      assert.equal(fresh.status, 403, fresh.text);
      // Granting oneself the verb in the same write is no way around it.
      const granted = await request(
        s,
        "PATCH",
        `${VCI}/vc`,
        {
          metadata: { annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: "https://vc.example.com" } },
          spec: { access: [{ verbs: ["administer"], users: ["alice"] }] },
        },
        key.alice,
      );
      assert.equal(granted.status, 403, granted.text);
    });

    it("the plain member still edits the instance's other fields", async () => {
      const r = await request(s, "PATCH", `${VCI}/vc`, { spec: { description: "mine" } }, key.alice);
      assert.equal(r.status, 200, r.text);
    });

    it("a project admin member administers the project's instances", async () => {
      const r = await annotate(
        `${VCI}/vc`,
        { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: "https://vc.example.com" },
        key.carol,
      );
      assert.equal(r.status, 200, r.text);
      // And once set, the plain member may edit around it but not remove it.
      const edit = await request(s, "PATCH", `${VCI}/vc`, { spec: { description: "again" } }, key.alice);
      assert.equal(edit.status, 200, edit.text);
      const removed = await annotate(`${VCI}/vc`, { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: null }, key.alice);
      assert.equal(removed.status, 403, removed.text);
    });

    it("moving a pointed instance into a project where the mover may not administer is refused", async () => {
      const lab = "namespaces/p-lab/virtualclusterinstances";
      const pointed = await request(
        s,
        "POST",
        lab,
        {
          metadata: {
            name: "planted",
            annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: "https://vc.example.com" },
          },
          spec: {},
        },
        key.alice,
      );
      assert.equal(pointed.status, 201, pointed.text);
      const moved = await request(
        s,
        "POST",
        "projects/web/migratevirtualclusterinstance",
        {
          apiVersion: "management.platform/v1",
          kind: "ProjectMigrateVirtualClusterInstance",
          metadata: { name: "web" },
          sourceVirtualClusterInstance: { name: "planted", namespace: "p-lab" },
        },
        key.alice,
      );
      assert.equal(moved.status, 403, moved.text);
      assert.match(moved.json.message, /cannot administer resource "virtualclusterinstances"/);
      assert.equal((await s.request("GET", `${GROUP_PATH}/${lab}/planted`)).status, 200, "the instance stayed");
    });

    it("a cluster editor without administer sets none of the cluster's endpoint settings", async () => {
      const writes: Array<[string, unknown]> = [
        [
          "direct-cluster-endpoint",
          { metadata: { annotations: { [DIRECT_ENDPOINT_ANNOTATION]: "https://agent.example.com" } } },
        ],
        ["direct-cluster-endpoint-ca", { metadata: { annotations: { [DIRECT_ENDPOINT_CA_ANNOTATION]: caBase64 } } }],
        ["ingress-suffix", { metadata: { annotations: { [INGRESS_SUFFIX_ANNOTATION]: "vc.example.com" } } }],
        ["spec.config", { spec: { config: { secretName: "other-kubeconfig" } } }],
        ["spec.local", { spec: { local: true } }],
      ];
      for (const [what, patch] of writes) {
        const r = await request(s, "PATCH", "clusters/prod", patch, key.ed);
        assert.equal(r.status, 403, `${what}: ${r.text}`);
        assert.match(r.json.message, /User "ed" cannot administer resource "clusters"/, what);
      }
      const description = await request(s, "PATCH", "clusters/prod", { spec: { description: "edited" } }, key.ed);
      assert.equal(description.status, 200, description.text);
    });

    it("an access rule granting administer lets its holder set them", async () => {
      const r = await annotate(
        "clusters/prod",
        {
          [DIRECT_ENDPOINT_ANNOTATION]: "https://agent.example.com:8443",
          [DIRECT_ENDPOINT_CA_ANNOTATION]: caBase64,
          [INGRESS_SUFFIX_ANNOTATION]: "vc.example.com",
        },
        key.ada,
      );
      assert.equal(r.status, 200, r.text);
      // Whoever may update keeps writing the object whole (PUT) when the settings stay as they are.
      const full = await s.request("GET", `${GROUP_PATH}/clusters/prod`);
      full.json.spec.description = "put by ed";
      const put = await request(s, "PUT", "clusters/prod", full.json, key.ed);
      assert.equal(put.status, 200, put.text);
    });

    it("the new verb is one access rules can grant only when the granter holds it", async () => {
      const r = await request(
        s,
        "PATCH",
        "clusters/prod",
        { spec: { access: [{ verbs: ["get", "update", "patch", "administer"], users: ["ed"] }] } },
        key.ed,
      );
      assert.equal(r.status, 403, r.text);
      assert.match(r.json.message, /cannot grant access rule verb "administer"/);
    });
  });

  describe("what values they take", () => {
    const refusedUrls: Array<[string, RegExp]> = [
      ["http://vc.example.com", /must be an https:\/\/ URL/],
      ["not a url", /must be an https:\/\/ URL/],
      ["https://user:pw@vc.example.com", /must not carry a user name or password/],
      ["https://127.0.0.1:6443", /127\.0\.0\.1 is a loopback address.*--allow-local-endpoints/],
      ["https://[::1]:6443", /is a loopback address/],
      ["https://[::ffff:127.0.0.1]", /is a loopback address/],
      ["https://2130706433", /127\.0\.0\.1 is a loopback address/],
      ["https://169.254.169.254/latest/meta-data", /is a link-local address/],
      ["https://[fe80::1]", /is a link-local address/],
      ["https://0.0.0.0:2379", /is an unspecified address/],
    ];

    it("an endpoint URL must be https and not local (422 naming the field)", async () => {
      refusedUrls.push([`https://${ownAddress()}:2379`, /is an address of the platform's own host/]);
      for (const [value, detail] of refusedUrls) {
        for (const [path, annotation] of [
          [`${VCI}/vc`, VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION],
          ["clusters/values", DIRECT_ENDPOINT_ANNOTATION],
        ] as const) {
          const r = await annotate(path, { [annotation]: value });
          assert.equal(r.status, 422, `${value}: ${r.text}`);
          assert.equal(r.json.reason, "Invalid");
          assert.match(r.json.message, new RegExp(`metadata\\.annotations\\[${annotation.replace(/\./g, "\\.")}\\]`));
          assert.match(r.json.message, detail, value);
        }
      }
    });

    it("a public https URL, by address or by name, is accepted", async () => {
      for (const value of ["https://vc.example.com:8443/base", "https://203.0.113.7"]) {
        const r = await annotate(`${VCI}/vc`, { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: value });
        assert.equal(r.status, 200, `${value}: ${r.text}`);
      }
    });

    it("the ingress suffix is a DNS name and the agent's CA base64 PEM", async () => {
      for (const [annotation, value] of [
        [INGRESS_SUFFIX_ANNOTATION, "https://vc.example.com"],
        [INGRESS_SUFFIX_ANNOTATION, "vc.example.com:443"],
        [DIRECT_ENDPOINT_CA_ANNOTATION, "bm90IGEgY2VydGlmaWNhdGU="],
      ] as const) {
        const r = await annotate("clusters/values", { [annotation]: value });
        assert.equal(r.status, 422, `${value}: ${r.text}`);
      }
    });

    it("with --allow-local-endpoints local addresses are accepted, plain http still is not", async () => {
      for (const value of ["https://127.0.0.1:6443", "https://169.254.169.254", `https://${ownAddress()}:8443`]) {
        const r = await annotate("clusters/values", { [DIRECT_ENDPOINT_ANNOTATION]: value }, undefined, open);
        assert.equal(r.status, 200, `${value}: ${r.text}`);
      }
      const http = await annotate(
        "clusters/values",
        { [DIRECT_ENDPOINT_ANNOTATION]: "http://127.0.0.1" },
        undefined,
        open,
      );
      assert.equal(http.status, 422, http.text);
    });
  });
});
