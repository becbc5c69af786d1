import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import type { Authorizer, RequestAttributes } from "../authz/contract.js";
import { ownedAccessKeyResource } from "../kinds/owned-access-key/owned-access-key.js";
import { teamResource } from "../kinds/team/team.js";
import { userResource } from "../kinds/user/user.js";
import { type AdmissionAttributes, admissionAttributes } from "../registry/admission.js";
import { type RequestContext, systemContext } from "../registry/request-context.js";
import { OwnerReferencesAdmission, type OwnerSource } from "./owner-references.js";

const ctx: RequestContext = { user: { name: "bob", subjectKind: "User", groups: [], teams: [] }, warnings: [] };
const owners: OwnerSource = { resourceTypes: () => [userResource, teamResource], read: async () => undefined };
const keys = ownedAccessKeyResource();

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

const create = (obj: KubeObject, c = ctx): AdmissionAttributes =>
  admissionAttributes("CREATE", keys, obj, undefined, c, false);

describe("blockOwnerDeletion needs delete permission on the owner", () => {
  const asked: RequestAttributes[] = [];
  const denyDelete: Authorizer = {
    authorize: (_u, attrs) => {
      asked.push(attrs);
      return { allowed: attrs.verb !== "delete" };
    },
  };
  const allowAll: Authorizer = { authorize: () => ({ allowed: true }) };
  const admission = new OwnerReferencesAdmission(denyDelete, owners);

  it("refuses a new blocking reference when the caller may not delete the owner", async () => {
    const errs = await admission.admit(create(keyWith(true)));
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, "metadata.ownerReferences");
    assert.match(errs[0]!.detail ?? "", /cannot set blockOwnerDeletion/);
    assert.deepEqual(
      { verb: asked.at(-1)!.verb, resource: asked.at(-1)!.resource, name: asked.at(-1)!.name },
      { verb: "delete", resource: "users", name: "alice" },
    );
  });

  it("lets non-blocking references and already-blocking ones through", async () => {
    assert.deepEqual(await admission.admit(create(keyWith(false))), []);
    assert.deepEqual(
      await admission.admit(admissionAttributes("UPDATE", keys, keyWith(true), keyWith(true), ctx, false)),
      [],
    );
  });

  it("does not ask about the server's own writes", async () => {
    assert.deepEqual(await admission.admit(create(keyWith(true), systemContext())), []);
  });

  it("allows it when the authorizer allows delete", async () => {
    assert.deepEqual(await new OwnerReferencesAdmission(allowAll, owners).admit(create(keyWith(true))), []);
  });

  it("refuses owners of kinds the server does not know", async () => {
    const obj = keyWith(true);
    obj.metadata.ownerReferences![0]!.kind = "Widget";
    assert.equal((await new OwnerReferencesAdmission(allowAll, owners).admit(create(obj))).length, 1);
  });
});
