import { allResourceTypes, type KindList } from "../../kinds/index.js";
import { doodadResource } from "./doodad/doodad.js";
import { gizmoResource } from "./gizmo/gizmo.js";

/**
 * The registration list with the test kinds added (each declared only in its folder here): a
 * server started with it (ServerConfig.kinds) serves them beside the product's kinds.
 */
export const testKindList: KindList = (deps) => [...allResourceTypes(deps), gizmoResource, doodadResource];
