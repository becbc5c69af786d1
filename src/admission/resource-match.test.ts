import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { clusterResource } from "../kinds/cluster/cluster.js";
import { ownedAccessKeyResource } from "../kinds/owned-access-key/owned-access-key.js";
import { projectResource } from "../kinds/project/project.js";
import { projectSecretResource } from "../kinds/project-secret/project-secret.js";
import { teamResource } from "../kinds/team/team.js";
import { userResource } from "../kinds/user/user.js";
import { virtualClusterInstanceResource } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import { AdmissionChain, admissionAttributes } from "../registry/admission.js";
import type { RequestContext } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import { admissionPlugins } from "./plugins.js";

// The whole chain, with every dependency recording its calls: a write to a resource of another
// group that shares one of this group's plurals must pass through no plugin of this group's.

const OTHER_GROUP = "teams.example.com";
const bob = (): RequestContext => ({
  user: { name: "bob", subjectKind: "User", groups: [], teams: [] },
  warnings: [],
});

function chain() {
  const calls: string[] = [];
  const called =
    (name: string, answer: unknown = undefined) =>
    (..._args: unknown[]) => {
      calls.push(name);
      return answer;
    };
  const plugins = admissionPlugins({
    authorizer: {
      authorize: async (...a: unknown[]) => called("authorize", { allowed: false })(...a) as { allowed: boolean },
      needsObject: called("needsObject", false) as () => boolean,
      decide: called("decide", { allowed: false }) as () => { allowed: boolean },
      isAdmin: called("isAdmin", false) as () => boolean,
      rolesOf: called("rolesOf", new Set<string>()) as () => Set<string>,
      canReadSecretData: called("canReadSecretData", false) as () => boolean,
    },
    identity: { teamsOfUser: called("teamsOfUser", []) as () => KubeObject[] },
    owners: { resourceTypes: () => [], read: async () => undefined },
    read: async (...a) => called("read")(...a) as undefined,
    projects: async (...a) => called("projects")(...a) as undefined,
    quotas: {
      listInstances: async (...a) => called("listInstances", { items: [], revision: 0 })(...a) as never,
      guards: called("guards") as never,
    },
    claims: {
      listHolders: async (...a) => called("listHolders", { items: [], revision: 0 })(...a) as never,
      guards: called("claimGuards") as never,
    },
    uidOf: async (...a) => called("uidOf", "uid-1")(...a) as string,
    maxKeyTtlSeconds: 60,
    allowLocalEndpoints: false,
  });
  return { chain: new AdmissionChain(plugins), calls };
}

/** A body that would concern every plugin of this group: members, roles, owner, subject, ttl, cluster. */
const body = (namespace?: string): KubeObject => ({
  metadata: { name: "blue", ...(namespace ? { namespace } : {}) },
  spec: {
    users: ["alice"],
    clusterRoles: [{ name: "platform-management-admin" }],
    owner: { user: "alice" },
    user: "alice",
    ttl: 3600,
    clusterRef: { cluster: "prod" },
    source: { sharedSecret: { name: "db" } },
  },
});

const projectSecrets = projectSecretResource(undefined, { mayReadData: () => true });

const elsewhere = (rt: ResourceType): ResourceType => ({ ...rt, group: OTHER_GROUP });

async function write(rt: ResourceType) {
  const { chain: c, calls } = chain();
  const obj = body(rt.namespaced ? "p-red" : undefined);
  const attrs = admissionAttributes("CREATE", rt, obj, undefined, bob(), false);
  const errs = await c.admit(attrs);
  await c.validate(attrs);
  return { errs, calls, obj, warnings: attrs.warnings };
}

describe("admission matches a resource by group and plural", () => {
  const kinds = [
    teamResource,
    userResource,
    ownedAccessKeyResource(),
    virtualClusterInstanceResource,
    clusterResource,
    projectResource,
    projectSecrets,
  ];

  for (const rt of kinds) {
    it(`a "${rt.plural}" of another group passes no plugin of this group's`, async () => {
      const { errs, calls, obj, warnings } = await write(elsewhere(rt));
      assert.deepEqual(errs, []);
      assert.deepEqual(calls, [], "no plugin looked anything up");
      assert.deepEqual(obj, body(rt.namespaced ? "p-red" : undefined), "nothing added or capped");
      assert.deepEqual(warnings, []);
    });
  }

  it("this group's same writes are each acted on (the matching is not simply off)", async () => {
    // teams and users: a role bob does not hold.
    for (const rt of [teamResource, userResource]) {
      await assert.rejects(write(rt), (e: ApiError) => e.code === 403 && /clusterRole/.test(e.message), rt.plural);
    }
    // keys: a key for alice (escalation), after the ttl cap and the owner link ran.
    await assert.rejects(
      write(ownedAccessKeyResource()),
      (e: ApiError) => e.code === 403 && /access key/.test(e.message),
    );
    // instances and project secrets: their project is looked up (and missing).
    await assert.rejects(write(virtualClusterInstanceResource), (e: ApiError) => e.code === 404);
    await assert.rejects(write(projectSecrets), (e: ApiError) => e.code === 404);
    // clusters and projects: naming an owner needs `get` on it.
    for (const rt of [clusterResource, projectResource]) {
      await assert.rejects(write(rt), (e: ApiError) => e.code === 403, rt.plural);
    }
  });
});
