import { errors } from "../api/errors.js";
import { decodeSegment } from "../api/path-segments.js";
import { projectNamespace } from "../kinds/project/project.js";
import { type ForwardedPath, parseForwardedPath } from "./forwarded-path.js";
import type { GatewayTarget } from "./gateway-scope.js";

const CLUSTER_PATH = /^\/kubernetes\/cluster\/([^/?]+)(\/[^?]*)?(\?.*)?$/;
const VCLUSTER_PATH = /^\/kubernetes\/project\/([^/?]+)\/virtualcluster\/([^/?]+)(\/[^?]*)?(\?.*)?$/;
const SPACE_PATH = /^\/kubernetes\/project\/([^/?]+)\/space\/([^/?]+)(\/[^?]*)?(\?.*)?$/;

/** A gateway request's URL, read once: where it goes, and the path forwarded there. */
export interface GatewayPath {
  target: GatewayTarget;
  /** For the audit line: `cluster/NAME`, `project/P/virtualcluster/NAME`, `project/P/space/NAME` (names decoded). */
  label: string;
  forwarded: ForwardedPath;
}

/**
 * Reads `/kubernetes/cluster/{cluster}/...`, `/kubernetes/project/{project}/virtualcluster/{name}/...`
 * or `/kubernetes/project/{project}/space/{name}/...`:
 * the names decoded, the rest checked by parseForwardedPath. Throws an ApiError only: 400 for a
 * name or path that does not decode or is not canonical, 404 for any other path.
 */
export function parseGatewayPath(url: string): GatewayPath {
  const c = CLUSTER_PATH.exec(url);
  if (c) {
    const cluster = decodedName(c[1]!);
    const forwarded = parseForwardedPath((c[2] ?? "/") + (c[3] ?? ""));
    return { target: { kind: "cluster", cluster }, label: `cluster/${cluster}`, forwarded };
  }
  const v = VCLUSTER_PATH.exec(url);
  if (v) {
    const project = decodedName(v[1]!);
    const name = decodedName(v[2]!);
    const forwarded = parseForwardedPath((v[3] ?? "/") + (v[4] ?? ""));
    const target = { kind: "virtualcluster" as const, project, namespace: projectNamespace(project), name };
    return { target, label: `project/${project}/virtualcluster/${name}`, forwarded };
  }
  const sp = SPACE_PATH.exec(url);
  if (sp) {
    const project = decodedName(sp[1]!);
    const name = decodedName(sp[2]!);
    const forwarded = parseForwardedPath((sp[3] ?? "/") + (sp[4] ?? ""));
    const target = { kind: "space" as const, project, namespace: projectNamespace(project), name };
    return { target, label: `project/${project}/space/${name}`, forwarded };
  }
  throw errors.notFoundPath();
}

function decodedName(raw: string): string {
  const name = decodeSegment(raw);
  if (name === undefined) throw errors.badRequest(`invalid escape in ${JSON.stringify(raw)}`);
  if (name.includes("/")) throw errors.badRequest(`the name ${JSON.stringify(name)} holds a slash`);
  return name;
}
