import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../api/object.js";
import { teamResource } from "../../kinds/team/team.js";
import { userResource } from "../../kinds/user/user.js";
import type { Registry } from "../../registry/registry.js";
import type { RequestContext } from "../../registry/request-context.js";
import type { Authorizer, RequestAttributes } from "../../server/authorizer.js";
import { OwnerReferencesAdmission } from "./owner-references-admission.js";

const ctx: RequestContext = { user: { name: "bob", subjectKind: "User", groups: [], teams: [] }, warnings: [] };
const registry = { resourceTypes: () => [userResource, teamResource] } as unknown as Registry;

function keyWith(blockOwnerDeletion: boolean | undefined): KubeObject {
  return {
    metadata: {
      name: "k",
      ownerReferences: [
        { apiVersion: "management.platform/v1", kind: "User", name: "alice", uid: "u-1", blockOwnerDeletion },
      ],
    },
  } as KubeObject;
}

describe("blockOwnerDeletion needs delete permission on the owner", () => {
  const asked: RequestAttributes[] = [];
  const denyDelete: Authorizer = {
    authorize: (_u, attrs) => {
      asked.push(attrs);
      return { allowed: attrs.verb !== "delete" };
    },
  };
  const admission = new OwnerReferencesAdmission();
  admission.registry = registry;
  admission.authorizer = denyDelete;

  it("refuses a new blocking reference when the caller may not delete the owner", async () => {
    const errs = await admission.check(keyWith(true), undefined, ctx);
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, "metadata.ownerReferences");
    assert.match(errs[0]!.detail ?? "", /cannot set blockOwnerDeletion/);
    assert.deepEqual(
      { verb: asked.at(-1)!.verb, resource: asked.at(-1)!.resource, name: asked.at(-1)!.name },
      { verb: "delete", resource: "users", name: "alice" },
    );
  });

  it("lets non-blocking references and already-blocking ones through", async () => {
    assert.deepEqual(await admission.check(keyWith(false), undefined, ctx), []);
    assert.deepEqual(await admission.check(keyWith(true), keyWith(true), ctx), []);
  });

  it("allows it when the authorizer allows delete", async () => {
    const allowing = new OwnerReferencesAdmission();
    allowing.registry = registry;
    assert.deepEqual(await allowing.check(keyWith(true), undefined, ctx), []);
  });

  it("refuses owners of kinds the server does not know", async () => {
    const obj = keyWith(true);
    obj.metadata.ownerReferences![0]!.kind = "Widget";
    const allowing = new OwnerReferencesAdmission();
    allowing.registry = registry;
    assert.equal((await allowing.check(obj, undefined, ctx)).length, 1);
  });
});
