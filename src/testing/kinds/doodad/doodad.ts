import { Type } from "@sinclair/typebox";
import { objectSchema } from "../../../api/schema/meta.js";
import { ageColumn, defineKind, nameColumn } from "../../../kinds/define.js";

/**
 * A kind that exists only in tests, `Doodad` (`doodads`): a project's instance declared in its
 * folder alone (`projectInstance`), as VirtualClusterInstances and SpaceInstances are.
 */
export const doodadResource = defineKind({
  kind: "Doodad",
  plural: "doodads",
  singular: "doodad",
  shortNames: [],
  namespaced: true,
  projectInstance: true,
  hasStatus: false,
  description: "A Doodad is a test kind that belongs to a project.",
  schema: objectSchema(
    "Doodad",
    "A Doodad is a test kind that belongs to a project.",
    Type.Object(
      {
        clusterRef: Type.Optional(
          Type.Object(
            { cluster: Type.Optional(Type.String({ description: "The connected cluster it runs on." })) },
            { description: "Where it runs." },
          ),
        ),
      },
      { description: "DoodadSpec is the desired state of a doodad." },
    ),
    undefined,
  ),
  columns: [nameColumn(), ageColumn()],
});
