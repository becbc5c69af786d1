import type { IdentityIndex } from "../auth/identity-index.js";
import type { PlatformAuthorizer } from "../authz/authorizer.js";
import type { AdmissionPlugin } from "../registry/admission.js";
import { ClusterAccessGrantsAdmission } from "./cluster-access-grants.js";
import { CreatorOwnerAdmission } from "./creator-owner.js";
import { EndpointSettingsAdmission } from "./endpoint-settings.js";
import { EscalationAdmission } from "./escalation.js";
import { InstanceInsideRolesAdmission } from "./instance-inside-roles.js";
import { KeyTtlCapAdmission } from "./key-ttl-cap.js";
import { type ClaimSource, NamespaceClaimsAdmission } from "./namespace-claims.js";
import { OwnerLinksAdmission, type UidLookup } from "./owner-links.js";
import { OwnerReferencesAdmission, type OwnerSource } from "./owner-references.js";
import { OwnerRightsAdmission } from "./owner-rights.js";
import { ProjectInstancesAdmission, type ProjectLookup } from "./project-instances.js";
import { ProjectQuotasAdmission, type QuotaSource } from "./project-quotas.js";
import { ProjectSecretSourceAdmission } from "./project-secret-source.js";
import { type ObjectReader, ReferenceAdmission } from "./references.js";
import { SpaceInstancesAdmission } from "./space-instances.js";
import { TemplateAuthoringAdmission } from "./template-authoring.js";
import { VirtualClusterCaSourceAdmission } from "./virtual-cluster-ca-source.js";
import { VirtualClusterTemplatesAdmission } from "./virtual-cluster-templates.js";

export interface AdmissionDeps {
  /** Decides the caller's rights (blockOwnerDeletion, no escalation). */
  authorizer: Pick<
    PlatformAuthorizer,
    "authorize" | "needsObject" | "decide" | "isAdmin" | "rolesOf" | "canReadSecretData"
  >;
  /** Teams a user's groups put it in (no escalation through groups). */
  identity: Pick<IdentityIndex, "teamsOfUser">;
  /** Reads owners by kind (the registry). */
  owners: OwnerSource;
  /** Reads objects by resource (the registry), for the references a field names. */
  read: ObjectReader;
  projects: ProjectLookup;
  /** The stored instances and the guard keys project quotas are counted from. */
  quotas: QuotaSource;
  /** The stored spaces and instances on a cluster, and the guard keys of the namespaces they hold. */
  claims: ClaimSource;
  uidOf: UidLookup;
  /** `--max-key-ttl` in seconds; undefined: no limit. */
  maxKeyTtlSeconds: number | undefined;
  /** `--allow-local-endpoints`: endpoint settings may name loopback, link-local and own addresses. */
  allowLocalEndpoints: boolean;
}

/**
 * The server's admission plugins, in the order they run: all `admit` (mutating) phases in this
 * order, then the kind's strategy, validation, then all `validate` phases in this order
 * (docs/architecture.md). Owner references come first: they are checked on the body as the
 * client sent it, before the next two add the server's own references. References come after
 * escalation, so only callers allowed to name a key's subject learn whether it exists. Who may
 * name an instance's owner (OwnerRights) is checked after references, on the owner CreatorOwner
 * filled in: naming a user one may not read stays References' 403. Spaces come after references, so only who may use a template learns whether it exists. The
 * project's default virtual cluster template is filled in (VirtualClusterTemplates' admit)
 * before the kind places the instance (strategy), so an instance given only its project is
 * placed as one deployed from a template, and is not asked who may point an instance without
 * a template at a virtual cluster (VirtualClusterCaSource, after References' `use` of the
 * cluster). The namespace an
 * instance holds on its cluster is checked once the caller is known to may `use` that cluster
 * (References), and before quotas. Quotas come
 * last: an instance refused for any other reason is never counted, and an instance's owner (its
 * creator when none is given: CreatorOwner) is set.
 */
export function admissionPlugins(deps: AdmissionDeps): AdmissionPlugin[] {
  return [
    new OwnerReferencesAdmission(deps.authorizer, deps.owners),
    new ProjectInstancesAdmission(deps.projects),
    new OwnerLinksAdmission(deps.uidOf),
    new KeyTtlCapAdmission(deps.maxKeyTtlSeconds),
    new EscalationAdmission(deps.authorizer, deps.identity, deps.read),
    new ReferenceAdmission(deps.authorizer, deps.read),
    new EndpointSettingsAdmission(deps.authorizer, deps.allowLocalEndpoints),
    new ClusterAccessGrantsAdmission(deps.authorizer, deps.read),
    new CreatorOwnerAdmission(),
    new OwnerRightsAdmission(deps.authorizer),
    new SpaceInstancesAdmission(deps.authorizer, deps.read),
    new InstanceInsideRolesAdmission(deps.authorizer),
    new VirtualClusterTemplatesAdmission(deps.authorizer, deps.read, deps.projects),
    new VirtualClusterCaSourceAdmission(deps.authorizer, deps.read, deps.claims),
    new TemplateAuthoringAdmission(deps.authorizer),
    new ProjectSecretSourceAdmission(deps.authorizer, deps.read),
    new NamespaceClaimsAdmission(deps.authorizer, deps.claims),
    new ProjectQuotasAdmission(deps.projects, deps.quotas),
  ];
}
