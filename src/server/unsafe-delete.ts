import { UNSAFE_DELETE_VERB } from "../authz/authorizer.js";
import { deleteCorruptObject } from "../registry/unsafe-delete.js";
import { send } from "./respond.js";
import type { VerbCall } from "./verb-call.js";

/**
 * A DELETE with `ignoreStoreReadErrorWithClusterBreakingPotential` (registry/unsafe-delete.ts),
 * `delete` already allowed: it also needs `unsafe-delete-ignore-read-errors` on the resource
 * (403 otherwise, asked before the object is looked at, as kube-apiserver asks). The answer is
 * kube's: a Success Status naming the object, since there is no object to return.
 */
export async function unsafeDelete(call: VerbCall): Promise<unknown> {
  const { path, ctx, request, reply } = call;
  await call.authorize({ verb: UNSAFE_DELETE_VERB });
  const name = path.name!;
  const revision = await deleteCorruptObject(path.store, path.namespace, name);
  // Worth a line in the server log beside the audit event: nothing of the object could be checked.
  request.log.warn(
    { resource: path.rt.plural, namespace: path.namespace, name, user: ctx.user.name, revision },
    "unsafe deletion of a corrupt stored object",
  );
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: { name, kind: path.rt.kind },
    code: 200,
  };
  return send(reply, 200, status, call.format, ctx.warnings);
}
