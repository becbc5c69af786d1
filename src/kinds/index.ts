import { type ProjectLookup, withProjectAdmission } from "../projects/instance-admission.js";
import type { ResourceType } from "../registry/resource-type.js";
import { clusterResource } from "./cluster/cluster.js";
import {
  directClusterEndpointTokenResource,
  type TokenIssuer,
} from "./direct-cluster-endpoint-token/direct-cluster-endpoint-token.js";
import { ownedAccessKeyResource } from "./owned-access-key/owned-access-key.js";
import { accessKeyOwner, type UidLookup, virtualClusterInstanceOwner, withOwnerLink } from "./owner-links.js";
import { projectResource } from "./project/project.js";
import { selfResource } from "./self/self.js";
import { type SecretDataCipher, sharedSecretResource } from "./shared-secret/shared-secret.js";
import { teamResource } from "./team/team.js";
import { userResource } from "./user/user.js";
import { virtualClusterInstanceResource } from "./virtual-cluster-instance/virtual-cluster-instance.js";

export interface KindDeps {
  cipher?: SecretDataCipher;
  tokenIssuer: TokenIssuer;
  /** Looks up owners' uids so keys and instances get ownerReferences (absent: none are added). */
  uidLookup?: UidLookup;
  /** Reads Projects, for the checks on instances in project namespaces (absent: unchecked, as in store-only tests). */
  projects?: ProjectLookup;
}

/** The registration list: adding a kind is a folder and one line here. */
export function allResourceTypes(deps: KindDeps): ResourceType[] {
  return [
    teamResource,
    userResource,
    clusterResource,
    sharedSecretResource(deps.cipher),
    deps.uidLookup
      ? withOwnerLink(ownedAccessKeyResource(deps.cipher), accessKeyOwner, deps.uidLookup)
      : ownedAccessKeyResource(deps.cipher),
    projectResource,
    // Project admission keeps the instance's ownerReference to its Project itself (also across moves).
    deps.projects
      ? withProjectAdmission(virtualClusterInstanceResource, deps.projects)
      : deps.uidLookup
        ? withOwnerLink(virtualClusterInstanceResource, virtualClusterInstanceOwner, deps.uidLookup)
        : virtualClusterInstanceResource,
    directClusterEndpointTokenResource(deps.tokenIssuer),
    selfResource,
  ];
}
