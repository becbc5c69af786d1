import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { ownedAccessKeyResource } from "../kinds/owned-access-key/owned-access-key.js";
import { teamResource } from "../kinds/team/team.js";
import { virtualClusterInstanceResource } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import { admissionAttributes } from "../registry/admission.js";
import { type RequestContext, systemContext } from "../registry/request-context.js";
import { EscalationAdmission } from "./escalation.js";
import { KeyTtlCapAdmission } from "./key-ttl-cap.js";
import { OwnerLinksAdmission } from "./owner-links.js";
import { admissionPlugins } from "./plugins.js";
import { ProjectInstancesAdmission } from "./project-instances.js";

// Each admission plugin alone, with plain objects for what it depends on.

const keys = ownedAccessKeyResource();
const bob = (): RequestContext => ({
  user: { name: "bob", subjectKind: "User", groups: [], teams: ["red"] },
  warnings: [],
});
const obj = (spec: Record<string, unknown>, namespace?: string): KubeObject => ({
  metadata: { name: "x", ...(namespace ? { namespace } : {}) },
  spec,
});

describe("the plugin list", () => {
  it("runs owner references first (on the body as sent), references after escalation", () => {
    const none = () => {
      throw new Error("not called");
    };
    const names = admissionPlugins({
      authorizer: {
        authorize: none,
        needsObject: none,
        decide: none,
        isAdmin: none,
        rolesOf: none,
        canReadSecretData: none,
      },
      identity: { teamsOfUser: none },
      owners: { resourceTypes: () => [], read: none },
      read: none,
      projects: none,
      quotas: { listInstances: none, guards: none },
      claims: { listHolders: none, guards: none },
      uidOf: none,
      maxKeyTtlSeconds: undefined,
      allowLocalEndpoints: false,
    }).map((p) => p.name);
    assert.deepEqual(names, [
      "OwnerReferencesPermissionEnforcement",
      "ProjectInstances",
      "OwnerLinks",
      "KeyTtlCap",
      "NoEscalation",
      "References",
      "EndpointSettings",
      "ClusterAccessGrants",
      "CreatorOwner",
      "OwnerRights",
      "SpaceInstances",
      "InstanceInsideRoles",
      "VirtualClusterTemplates",
      "VirtualClusterCaSource",
      "TemplateAuthoring",
      "ProjectSecretSource",
      "NamespaceClaims",
      "ProjectQuotas",
    ]);
  });
});

describe("KeyTtlCapAdmission", () => {
  it("caps a longer or absent ttl with a warning, and leaves a shorter one", () => {
    const cap = new KeyTtlCapAdmission(3600);
    const ctx = bob();
    const long = obj({ ttl: 7200 });
    cap.admit(admissionAttributes("CREATE", keys, long, undefined, ctx, false));
    assert.equal(long.spec?.ttl, 3600);
    const endless: KubeObject = { metadata: { name: "y" } };
    cap.admit(admissionAttributes("CREATE", keys, endless, undefined, ctx, false));
    assert.equal(endless.spec?.ttl, 3600);
    assert.equal(ctx.warnings.length, 2);
    const short = obj({ ttl: 60 });
    cap.admit(admissionAttributes("UPDATE", keys, short, short, ctx, false));
    assert.equal(short.spec?.ttl, 60);
  });

  it("does nothing without a limit, for other kinds, or for the server's own keys", () => {
    for (const [cap, rt, ctx] of [
      [new KeyTtlCapAdmission(undefined), keys, bob()],
      [new KeyTtlCapAdmission(10), teamResource, bob()],
      [new KeyTtlCapAdmission(10), keys, systemContext()],
    ] as const) {
      const o = obj({ ttl: 99 });
      cap.admit(admissionAttributes("CREATE", rt, o, undefined, ctx, false));
      assert.equal(o.spec?.ttl, 99);
    }
  });
});

describe("OwnerLinksAdmission", () => {
  const uids: Record<string, string> = { "User/bob": "uid-bob", "Team/red": "uid-red" };
  const links = new OwnerLinksAdmission(async (kind, _ns, name) => uids[`${kind}/${name}`]);

  it("makes a key owned by its user, or by the caller when it names no subject", async () => {
    const own = obj({});
    await links.admit(admissionAttributes("CREATE", keys, own, undefined, bob(), false));
    assert.deepEqual(own.metadata.ownerReferences, [
      {
        apiVersion: "management.platform/v1",
        kind: "User",
        name: "bob",
        uid: "uid-bob",
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const team = obj({ team: "red" });
    await links.admit(admissionAttributes("CREATE", keys, team, undefined, bob(), false));
    assert.equal(team.metadata.ownerReferences?.[0]?.uid, "uid-red");
  });

  it("invents no owner, and leaves updates and free subjects alone", async () => {
    for (const [spec, op] of [
      [{ user: "ghost" }, "CREATE"],
      [{ subject: "ci" }, "CREATE"],
      [{ user: "bob" }, "UPDATE"],
    ] as const) {
      const o = obj(spec);
      await links.admit(admissionAttributes(op, keys, o, op === "UPDATE" ? obj(spec) : undefined, bob(), false));
      assert.equal(o.metadata.ownerReferences, undefined);
    }
  });
});

describe("ProjectInstancesAdmission", () => {
  const projects: Record<string, KubeObject> = {
    alpha: { metadata: { name: "alpha", uid: "uid-alpha" }, spec: { allowedClusters: [{ name: "east" }] } },
    gone: { metadata: { name: "gone", uid: "uid-gone", deletionTimestamp: "2026-01-01T00:00:00Z" } },
  };
  const admission = new ProjectInstancesAdmission(async (name) => projects[name]);
  const vci = virtualClusterInstanceResource;
  const instance = (ns: string, cluster: string) => obj({ clusterRef: { cluster } }, ns);

  it("owns an instance by its project and checks allowedClusters", async () => {
    const ok = instance("p-alpha", "east");
    assert.deepEqual(await admission.admit(admissionAttributes("CREATE", vci, ok, undefined, bob(), false)), []);
    assert.deepEqual(ok.metadata.ownerReferences, [
      { apiVersion: "management.platform/v1", kind: "Project", name: "alpha", uid: "uid-alpha" },
    ]);
    const west = instance("p-alpha", "west");
    const errs = await admission.admit(admissionAttributes("CREATE", vci, west, undefined, bob(), false));
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, "spec.clusterRef.cluster");
  });

  it("refuses a create in a missing or terminating project", async () => {
    const missing = admission.admit(
      admissionAttributes("CREATE", vci, instance("p-nope", "east"), undefined, bob(), false),
    );
    await assert.rejects(missing, (e: ApiError) => e.code === 404);
    const gone = admission.admit(
      admissionAttributes("CREATE", vci, instance("p-gone", "east"), undefined, bob(), false),
    );
    await assert.rejects(gone, (e: ApiError) => e.code === 403);
  });

  it("checks allowedClusters on update only when the cluster changes", async () => {
    const old = instance("p-alpha", "west");
    const same = instance("p-alpha", "west");
    assert.deepEqual(await admission.admit(admissionAttributes("UPDATE", vci, same, old, bob(), false)), []);
    const moved = instance("p-alpha", "north");
    assert.equal((await admission.admit(admissionAttributes("UPDATE", vci, moved, old, bob(), false))).length, 1);
  });

  describe("the ownerReference to the project on update", () => {
    const ref = (project: string, uid: string) => ({
      apiVersion: "management.platform/v1",
      kind: "Project",
      name: project,
      uid,
    });
    const owned = (ns: string, ...refs: ReturnType<typeof ref>[]) => {
      const o = instance(ns, "east");
      if (refs.length) o.metadata.ownerReferences = refs;
      return o;
    };
    const update = async (next: KubeObject, old: KubeObject) => {
      await admission.admit(admissionAttributes("UPDATE", vci, next, old, bob(), false));
      return next.metadata.ownerReferences;
    };

    it("comes back when a client's write drops it from an instance the project owns", async () => {
      const refs = await update(owned("p-alpha"), owned("p-alpha", ref("alpha", "uid-alpha")));
      assert.deepEqual(refs, [ref("alpha", "uid-alpha")]);
    });

    it("is not put back while the project is being deleted (the collector orphaning it)", async () => {
      const refs = await update(owned("p-gone"), owned("p-gone", ref("gone", "uid-gone")));
      assert.equal(refs, undefined);
    });

    it("is not given to an orphan by a write that does not ask for it", async () => {
      assert.equal(await update(owned("p-alpha"), owned("p-alpha")), undefined);
    });

    it("is kept as sent when it names an earlier project of the same name (the collector deletes it)", async () => {
      const refs = await update(owned("p-alpha", ref("alpha", "uid-old")), owned("p-alpha", ref("alpha", "uid-old")));
      assert.deepEqual(refs, [ref("alpha", "uid-old")]);
    });

    it("is written in the server's form when a client adds it to an orphan", async () => {
      const refs = await update(owned("p-alpha", ref("alpha", "")), owned("p-alpha"));
      assert.deepEqual(refs, [ref("alpha", "uid-alpha")]);
    });
  });
});

describe("EscalationAdmission", () => {
  const nothing = {
    decide: () => ({ allowed: false }),
    isAdmin: () => false,
    rolesOf: () => new Set<string>(),
  };
  const clusters = new Map([["prod", obj({})]]);
  const escalation = new EscalationAdmission(nothing, { teamsOfUser: () => [] }, async (_r, _ns, name) =>
    clusters.get(name),
  );
  const team = teamResource;

  it("refuses a role the caller does not hold, and not for the server's own writes", async () => {
    const withRole = obj({ clusterRoles: [{ name: "platform-management-admin" }] });
    await assert.rejects(
      async () => escalation.validate(admissionAttributes("CREATE", team, withRole, undefined, bob(), false)),
      (e: ApiError) => e.code === 403 && /cannot grant clusterRole/.test(e.message),
    );
    await escalation.validate(admissionAttributes("CREATE", team, withRole, undefined, systemContext(), false));
  });

  it("refuses a key for someone else", async () => {
    await assert.rejects(
      async () =>
        escalation.validate(admissionAttributes("CREATE", keys, obj({ user: "alice" }), undefined, bob(), false)),
      (e: ApiError) => e.code === 403,
    );
    await escalation.validate(admissionAttributes("CREATE", keys, obj({ user: "bob" }), undefined, bob(), false));
  });
});
