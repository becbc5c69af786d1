/**
 * Where the built-in kinds keep a Kubernetes quantity (`resource.Quantity`), which the API server
 * stores in a canonical form of its own: `cpu: "1000m"` reads back as `"1"`, `memory: "1024Mi"` as
 * `"1Gi"`. The resync's compare (apply-needed.ts) reads two strings there as the same value when
 * they stand for the same quantity; anywhere else a string is kept as written, so `"1000m"` and
 * `"1"` are two values (a ConfigMap's data, an annotation, an environment variable). A custom
 * resource keeps its strings as written, quantities too: reading them by value there changes
 * nothing.
 *
 * Only the fields a space or virtual cluster template can set are listed: resource requirements
 * (any container, a pod's, a claim's, in any workload's template), a ResourceQuota's `hard`, a
 * LimitRange's bounds and defaults, a PersistentVolume's capacity and an `emptyDir`'s size limit.
 */

/** The maps of a LimitRange item whose values are quantities. */
const LIMIT_RANGE_BOUNDS = new Set(["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"]);

/**
 * Whether a field holds a quantity. `fields` names the field from the object's root, one entry a
 * map key or field name, list elements not counted: a LimitRange's `spec.limits[0].max.cpu` is
 * `["spec", "limits", "max", "cpu"]`.
 */
export function isQuantityField(apiVersion: string | undefined, kind: string | undefined, fields: readonly string[]) {
  const n = fields.length;
  if (n >= 3 && fields[n - 3] === "resources" && (fields[n - 2] === "limits" || fields[n - 2] === "requests")) {
    return true;
  }
  if (n >= 2 && fields[n - 2] === "emptyDir" && fields[n - 1] === "sizeLimit") return true;
  if (apiVersion !== "v1") return false;
  const [spec, field, bound] = fields;
  if (spec !== "spec") return false;
  switch (kind) {
    case "ResourceQuota":
      return n === 3 && field === "hard";
    case "LimitRange":
      return n === 4 && field === "limits" && LIMIT_RANGE_BOUNDS.has(bound ?? "");
    case "PersistentVolume":
      return n === 3 && field === "capacity";
    default:
      return false;
  }
}
