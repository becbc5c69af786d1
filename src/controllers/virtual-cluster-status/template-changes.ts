import { isDeepStrictEqual } from "node:util";
import { type KubeObject, specOf } from "../../api/object.js";
import type { VirtualClusterInstanceSpec } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import { findVersion } from "../../kinds/virtual-cluster-template/versions.js";
import type {
  TemplateVersion,
  VirtualClusterTemplateSpec,
} from "../../kinds/virtual-cluster-template/virtual-cluster-template.js";

/**
 * Which instances a change of a VirtualClusterTemplate redeploys (docs/virtual-clusters.md,
 * "Upgrade"): those whose version, the one they pin or the newest they follow, is not the same
 * before and after the change. A version added is the new newest for those following it and
 * nothing for those pinned elsewhere; a version edited changes what its pinned instances (and,
 * when it is the newest, its followers) deploy; the template created or deleted changes it for
 * every instance that names it. A change that leaves an instance's version as it was (another
 * version edited, the description, the access rules) does not queue it: a template used by
 * thousands of instances must not redeploy them all for a word. Pure.
 */
export function redeployedByTemplateChange(
  instance: KubeObject,
  before: KubeObject | undefined,
  after: KubeObject | undefined,
): boolean {
  const ref = specOf<VirtualClusterInstanceSpec>(instance).templateRef;
  const name = (after ?? before)?.metadata.name;
  if (!ref || ref.name !== name) return false;
  return !isDeepStrictEqual(versionOf(before, ref.version), versionOf(after, ref.version));
}

/** The version of `template` that `wanted` names (the newest when absent or `latest`). */
function versionOf(template: KubeObject | undefined, wanted: string | undefined): TemplateVersion | undefined {
  if (!template) return undefined;
  return findVersion(specOf<VirtualClusterTemplateSpec>(template).versions ?? [], wanted);
}
