import type { ApiError } from "../api/errors.js";
import { errors, type FieldError, fieldError } from "../api/errors.js";
import { API_VERSION, GROUP, isPlainObject } from "../api/object.js";
import type { EventRecorder } from "../events/event-recorder.js";
import { projectNamespace } from "../kinds/project/project.js";
import { SPACE_FINALIZER } from "../kinds/space-instance/space-instance.js";
import type { Registry } from "../registry/registry.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import { send } from "../server/respond.js";
import { decodeBody, refusedMethod } from "../virtualclusters/actions.js";
import { recordSpaceMoved } from "./space-events.js";

const SPACES = { group: GROUP, resource: "spaceinstances" };
const PROJECTS = { group: GROUP, resource: "projects" };
/** How often a move is retried when the instance changed between read and transaction. */
const MOVE_ATTEMPTS = 5;

/**
 * POST .../projects/{target}/migratespaceinstance (docs/spaces.md, "Move"): the instance is
 * deleted in its project and created in the target in one transaction. The delete is the
 * storage's, not the API's: no deletionTimestamp, so the finalizer's cleanup never runs and the
 * namespace stays on the cluster with everything in it. The new instance keeps the status (the
 * namespace's UID), which is how the controller knows the namespace is its own and re-labels it.
 */
export function migrateSpaceAction(registry: Registry, events?: EventRecorder): SubresourceHandler {
  return async ({ request, reply, ctx, path, format, raw, authorize }) => {
    if (request.method !== "POST") throw await refusedMethod(path, request.method, authorize);
    const target = path.name!;
    const body = decodeBody(request.headers["content-type"], raw, "ProjectMigrateSpaceInstance");
    const source = isPlainObject(body.sourceSpaceInstance) ? body.sourceSpaceInstance : {};
    const errs: FieldError[] = [];
    for (const field of ["name", "namespace"] as const) {
      if (typeof source[field] !== "string" || source[field] === "") {
        errs.push(fieldError("FieldValueRequired", `sourceSpaceInstance.${field}`, "must be specified"));
      }
    }
    if (errs.length) throw errors.invalid("ProjectMigrateSpaceInstance", GROUP, target, errs);
    const name = source.name as string;
    const fromNamespace = source.namespace as string;
    const toNamespace = projectNamespace(target);

    const project = await registry.store("projects").read(undefined, target);
    if (!project) throw errors.notFound(PROJECTS, target);
    const instances = registry.store("spaceinstances");
    const deleteAttrs = { resource: "spaceinstances", subresource: "", namespace: fromNamespace, name };
    for (let attempt = 0; ; attempt++) {
      const current = await instances.read(fromNamespace, name);
      if (!current) {
        // Callers who may not delete spaces there learn nothing about which exist.
        await authorize({ verb: "delete", ...deleteAttrs });
        throw errors.notFound(SPACES, name);
      }
      await authorize({ verb: "delete", ...deleteAttrs, object: current });
      if (fromNamespace === toNamespace) {
        throw errors.badRequest(`space instance ${fromNamespace}/${name} is already in project "${target}"`);
      }
      if (current.metadata.deletionTimestamp) {
        throw errors.conflict(SPACES, name, `space instance ${fromNamespace}/${name} is being deleted`);
      }
      await authorize({
        verb: "create",
        resource: "spaceinstances",
        subresource: "",
        namespace: toNamespace,
        name: "",
      });

      const m = current.metadata;
      try {
        const [arrived] = await registry.transact(ctx, [
          { type: "delete", resource: "spaceinstances", object: current },
          {
            type: "create",
            resource: "spaceinstances",
            namespace: toNamespace,
            body: {
              apiVersion: API_VERSION,
              kind: "SpaceInstance",
              metadata: {
                name,
                ...(m.labels ? { labels: m.labels } : {}),
                ...(m.annotations ? { annotations: m.annotations } : {}),
                ...(m.ownerReferences ? { ownerReferences: m.ownerReferences } : {}),
                // The cleanup finalizer is added again by the kind on create; others stay.
                ...(m.finalizers ? { finalizers: m.finalizers.filter((f) => f !== SPACE_FINALIZER) } : {}),
              },
              spec: current.spec,
            },
            options: { dryRun: false, fieldManager: "platform-migrate", fieldValidation: "Ignore" },
            status: (current.status ?? {}) as Record<string, unknown>,
          },
        ]);
        if (arrived) recordSpaceMoved(events, current, arrived);
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
