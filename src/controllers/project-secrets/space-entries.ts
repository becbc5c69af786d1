import { isDeepStrictEqual } from "node:util";
import { ApiError } from "../../api/errors.js";
import { statusOf } from "../../api/object.js";
import type { ProjectSecretStatus } from "../../kinds/project-secret/project-secret.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";
import { FILL_FIELD_MANAGER } from "./space-secret-fill.js";

/** One entry of a ProjectSecret's `status.spaces`: how filling one space went. */
export type SpaceEntry = NonNullable<ProjectSecretStatus["spaces"]>[number];

/**
 * Writes one space's entry into the status of each named project secret: `entries` has the new
 * entry of those with labelled Secrets there; the others lose theirs. `onlyExisting`: a project
 * secret without an entry for the space gets none (a failure that says nothing about it).
 */
export async function writeSpaceEntries(
  registry: Registry,
  namespace: string,
  space: string,
  names: Iterable<string>,
  entries: ReadonlyMap<string, SpaceEntry>,
  onlyExisting = false,
): Promise<void> {
  for (const name of names) {
    try {
      await registry.store("projectsecrets").guaranteedUpdate(
        systemContext(),
        namespace,
        name,
        (obj) => {
          const status = statusOf<ProjectSecretStatus>(obj);
          const before = status.spaces ?? [];
          const had = before.some((s) => s.space === space);
          const others = before.filter((s) => s.space !== space);
          const entry = entries.get(name);
          const after = entry && (had || !onlyExisting) ? [...others, entry] : others;
          after.sort((a, b) => a.space.localeCompare(b.space));
          if (isDeepStrictEqual(after, before)) return undefined;
          const next: ProjectSecretStatus = { ...status, spaces: after };
          if (after.length === 0) delete next.spaces;
          obj.status = next;
          return obj;
        },
        "status",
        FILL_FIELD_MANAGER,
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) continue; // deleted meanwhile
      throw err;
    }
  }
}
