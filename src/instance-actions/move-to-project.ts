import type { ApiError } from "../api/errors.js";
import { errors, type FieldError, fieldError } from "../api/errors.js";
import { API_VERSION, GROUP, isPlainObject, type KubeObject } from "../api/object.js";
import type { ClaimStatus } from "../controllers/spaces/namespace-claim.js";
import { projectNamespace, projectOfNamespace } from "../kinds/project/project.js";
import type { Registry } from "../registry/registry.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import { send } from "../server/respond.js";
import { type Authorize, decodeBody, refusedMethod } from "./action-request.js";

/** What a move of instances of one kind needs to know of the kind. */
export interface MovableKind {
  /** The plural resource: `spaceinstances`. */
  resource: string;
  /** The kind of the instances: `SpaceInstance`. */
  kind: string;
  /** The kind of the request body: `ProjectMigrateSpaceInstance`. */
  requestKind: string;
  /** The body's field that names the instance to move: `sourceSpaceInstance`. */
  sourceField: string;
  /** How messages call an instance: `space instance`. */
  noun: string;
  /** The finalizer whose cleanup a delete runs; the kind adds it again on create. */
  cleanupFinalizer: string;
}

/** How often a move is retried when the instance changed between read and transaction. */
const MOVE_ATTEMPTS = 5;

/**
 * POST .../projects/{target}/migrate<kind> (docs/spaces.md, "Move"; docs/clusters.md, "Moving an
 * instance to another project"): the instance is deleted in its project and created in the target
 * in one transaction, so the source goes and the target appears at one revision, or neither. The
 * delete is the storage's, not the API's: no deletionTimestamp, so the finalizer's cleanup never
 * runs and what the instance runs on its cluster stays. The new instance keeps the status (what
 * the controller knows of the cluster side, movedStatus). Its create goes through admission like any other, so
 * the target's allowed clusters and quotas apply; the namespace the instance holds on its cluster
 * passes to the new object (`replacing`: src/admission/namespace-claims.ts), so that a create of
 * the same name in the old project, whose default namespace is the same, is refused. The caller needs delete on the instance and
 * create in the target project. `onMoved` hears of each move done (the kind's Events).
 */
export function moveToProjectAction(
  registry: Registry,
  movable: MovableKind,
  onMoved?: (left: KubeObject, arrived: KubeObject) => void,
): SubresourceHandler {
  return async ({ request, reply, ctx, path, format, raw, authorize }) => {
    if (request.method !== "POST") throw await refusedMethod(path, request.method, authorize);
    const target = path.name!;
    const body = decodeBody(request.headers["content-type"], raw, movable.requestKind);
    const { name, namespace: fromNamespace } = readSource(body, movable, target);
    const project = await registry.store("projects").read(undefined, target);
    if (!project) throw errors.notFound({ group: GROUP, resource: "projects" }, target);
    const move: Move = { registry, movable, authorize, name, fromNamespace, toNamespace: projectNamespace(target) };
    for (let attempt = 0; ; attempt++) {
      const current = await checkedSource(move, target);
      try {
        const [arrived] = await registry.transact(ctx, [
          { type: "delete", resource: movable.resource, object: current },
          {
            type: "create",
            resource: movable.resource,
            namespace: move.toNamespace,
            body: {
              apiVersion: API_VERSION,
              kind: movable.kind,
              metadata: movedMetadata(current, movable),
              spec: current.spec,
            },
            options: { dryRun: false, fieldManager: "platform-migrate", fieldValidation: "Ignore" },
            status: await movedStatus(registry, current, movable),
            // The namespace it holds on its cluster moves with it (src/admission/namespace-claims.ts).
            replacing: current,
          },
        ]);
        if (arrived) onMoved?.(current, arrived);
        return send(reply, 201, body, format, ctx.warnings);
      } catch (err) {
        // Changed or deleted since it was read: read it again.
        const reason = (err as Partial<ApiError>).reason;
        if ((reason === "Conflict" || reason === "NotFound") && attempt + 1 < MOVE_ATTEMPTS) continue;
        throw err;
      }
    }
  };
}

interface Move {
  registry: Registry;
  movable: MovableKind;
  authorize: Authorize;
  name: string;
  fromNamespace: string;
  toNamespace: string;
}

function readSource(body: Record<string, unknown>, movable: MovableKind, target: string) {
  const source = isPlainObject(body[movable.sourceField]) ? (body[movable.sourceField] as Record<string, unknown>) : {};
  const errs: FieldError[] = [];
  for (const field of ["name", "namespace"] as const) {
    if (typeof source[field] !== "string" || source[field] === "") {
      errs.push(fieldError("FieldValueRequired", `${movable.sourceField}.${field}`, "must be specified"));
    }
  }
  if (errs.length) throw errors.invalid(movable.requestKind, GROUP, target, errs);
  return { name: source.name as string, namespace: source.namespace as string };
}

/**
 * The instance as it is now, once the caller is known to hold delete on it (before that, nothing
 * is said of it, not even that it is already in the target) and create in the target.
 */
async function checkedSource(move: Move, target: string): Promise<KubeObject> {
  const { movable, authorize, name, fromNamespace, toNamespace } = move;
  const resource = { group: GROUP, resource: movable.resource };
  const deleteAttrs = { resource: movable.resource, subresource: "", namespace: fromNamespace, name };
  const current = await move.registry.store(movable.resource).read(fromNamespace, name);
  if (!current) {
    // Callers who may not delete instances there learn nothing about which exist.
    await authorize({ verb: "delete", ...deleteAttrs });
    throw errors.notFound(resource, name);
  }
  await authorize({ verb: "delete", ...deleteAttrs, object: current });
  if (fromNamespace === toNamespace) {
    throw errors.badRequest(`${movable.noun} ${fromNamespace}/${name} is already in project "${target}"`);
  }
  if (current.metadata.deletionTimestamp) {
    // Its cleanup has begun: the moved copy would run on without what it removes.
    throw errors.conflict(resource, name, `${movable.noun} ${fromNamespace}/${name} is being deleted`);
  }
  await authorize({ verb: "create", resource: movable.resource, subresource: "", namespace: toNamespace, name: "" });
  return current;
}

/** The metadata the moved instance is created with: the name, labels, annotations, owners and finalizers it had. */
function movedMetadata(current: KubeObject, movable: MovableKind): KubeObject["metadata"] {
  const m = current.metadata;
  // The cleanup finalizer is added again by the kind on create; others stay.
  const finalizers = (m.finalizers ?? []).filter((f) => f !== movable.cleanupFinalizer);
  return {
    name: m.name,
    ...(m.labels ? { labels: m.labels } : {}),
    ...(m.annotations ? { annotations: m.annotations } : {}),
    // Owners other than the old project stay; project admission points the project owner at the target.
    ...(m.ownerReferences ? { ownerReferences: m.ownerReferences } : {}),
    ...(finalizers.length ? { finalizers } : {}),
  };
}

/**
 * The status the moved instance is created with: the one it had, and when the platform keeps
 * something on the cluster for it (its cleanup finalizer) but it records no namespace UID yet, the
 * UID of the project whose labels its namespace still carries (namespace-claim.ts): without
 * either, the controller would take that namespace for another's. The UID, not the name: the
 * readers of the new project are not to learn the old one's. That project is the one it leaves,
 * or the first it left (a move before recorded it, or, by name, an earlier version did).
 */
async function movedStatus(registry: Registry, current: KubeObject, movable: MovableKind) {
  const status = { ...((current.status ?? {}) as Record<string, unknown>) };
  if (!(current.metadata.finalizers ?? []).includes(movable.cleanupFinalizer)) return status;
  const claim = status as ClaimStatus;
  if (claim.namespaceUID !== undefined || claim.movedFromProjectUID !== undefined) return status;
  const labelled = claim.movedFromProject ?? projectOfNamespace(current.metadata.namespace);
  const project = labelled === undefined ? undefined : await registry.store("projects").read(undefined, labelled);
  if (project?.metadata.uid) {
    status.movedFromProjectUID = project.metadata.uid;
    delete status.movedFromProject;
  }
  return status;
}
