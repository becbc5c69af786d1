import type { ResourceType } from "../registry/resource-type.js";
import { clusterResource } from "./cluster/cluster.js";
import { clusterAccessResource } from "./cluster-access/cluster-access.js";
import { clusterRoleTemplateResource } from "./cluster-role-template/cluster-role-template.js";
import {
  directClusterEndpointTokenResource,
  type TokenIssuer,
} from "./direct-cluster-endpoint-token/direct-cluster-endpoint-token.js";
import { ownedAccessKeyResource } from "./owned-access-key/owned-access-key.js";
import { projectResource } from "./project/project.js";
import { projectSecretResource } from "./project-secret/project-secret.js";
import { selfResource } from "./self/self.js";
import { type SecretDataCipher, type SecretDataReaders, sharedSecretResource } from "./shared-secret/shared-secret.js";
import { spaceInstanceResource } from "./space-instance/space-instance.js";
import { spaceTemplateResource } from "./space-template/space-template.js";
import { teamResource } from "./team/team.js";
import { userResource } from "./user/user.js";
import type { InstanceCaIssuer } from "./virtual-cluster-instance/instance-ca.js";
import { virtualClusterInstanceKind } from "./virtual-cluster-instance/virtual-cluster-instance.js";
import { virtualClusterTemplateResource } from "./virtual-cluster-template/virtual-cluster-template.js";

export interface KindDeps {
  /** Encrypts SharedSecret and ProjectSecret data at rest (absent: stored as given, in tests of the store alone). */
  cipher?: SecretDataCipher;
  /** Who reads SharedSecret and ProjectSecret data (the others are shown secrets without it). */
  secretDataReaders: SecretDataReaders;
  tokenIssuer: TokenIssuer;
  /** Makes the CA of each virtual cluster instance the platform creates (absent: none is made). */
  instanceCas?: InstanceCaIssuer;
}

/** Builds the kinds a server serves from what they need (allResourceTypes, or a test's list). */
export type KindList = (deps: KindDeps) => ResourceType[];

/**
 * The registration list: adding a kind is a folder and one line here. What a kind means for
 * other kinds (owner references, project rules) is admission (src/admission/plugins.ts).
 */
export function allResourceTypes(deps: KindDeps): ResourceType[] {
  return [
    teamResource,
    userResource,
    clusterResource,
    clusterRoleTemplateResource,
    clusterAccessResource,
    sharedSecretResource(deps.cipher, deps.secretDataReaders),
    ownedAccessKeyResource(deps.cipher),
    projectResource,
    virtualClusterTemplateResource,
    virtualClusterInstanceKind(deps.instanceCas),
    spaceTemplateResource,
    spaceInstanceResource,
    projectSecretResource(deps.cipher, deps.secretDataReaders),
    directClusterEndpointTokenResource(deps.tokenIssuer),
    selfResource,
  ];
}
