import { isDeepStrictEqual } from "node:util";
import { errors } from "../api/errors.js";
import { type KubeObject, specOf } from "../api/object.js";
import { ADMINISTER_VERB, ruleNamesCaller } from "../authz/authorizer.js";
import type { Authorizer } from "../authz/contract.js";
import { DEFAULT_INSIDE_ROLE } from "../kinds/virtual-cluster-instance/instance-access.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { UserInfo } from "../registry/request-context.js";
import { administersInstance } from "./instance-administration.js";
import { platformResource, writesTo } from "./resource-match.js";

const INSTANCES = platformResource("virtualclusterinstances");

/** Kubernetes' default user-facing ClusterRoles, weakest first: what a writer who does not administer the instance may rank. */
const RANKED_ROLES = ["view", "edit", "admin", "cluster-admin"] as const;

interface InsideRule {
  verbs?: string[];
  users?: string[];
  teams?: string[];
  clusterRole?: string;
}

/**
 * An instance's access rule binds its users and teams to a ClusterRole inside the virtual
 * cluster (cluster-admin when it names none). Nobody gives a role above their own there, as for
 * spaces (space-instances.ts): the instance's owner and who administers it may give any role;
 * anyone else only one of RANKED_ROLES up to the best the instance's rules already give them.
 * Only new or changed rules are checked, so an instance stays writable for its other fields.
 */
export class InstanceInsideRolesAdmission implements AdmissionPlugin {
  readonly name = "InstanceInsideRoles";

  constructor(private readonly authz: Pick<Authorizer, "authorize">) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!writesTo(attrs, INSTANCES) || attrs.subresource !== "" || attrs.operation === "DELETE") return;
    if (isServerWrite(attrs)) return;
    const { object: obj, oldObject: old, user } = attrs;
    const rules = (o: KubeObject | undefined) => specOf<{ access: InsideRule[] }>(o).access ?? [];
    const added = rules(obj).filter((r) => !rules(old).some((o) => isDeepStrictEqual(o, r)));
    if (added.length === 0) return;
    if (await administersInstance(this.authz, user, "virtualclusterinstances", old ?? obj, old === undefined)) return;
    const own = old ? bestRoleOf(user, rules(old)) : undefined;
    for (const rule of added) {
      const wanted = rule.clusterRole || DEFAULT_INSIDE_ROLE;
      if (rank(wanted) >= 0 && rank(wanted) <= rank(own)) continue;
      throw errors.forbidden(
        INSTANCES,
        obj.metadata.name ?? "",
        `User "${user.name}" cannot give clusterRole "${wanted}" inside the virtual cluster${rule.clusterRole ? "" : " (the default when a rule names none)"}: it holds ${own ? `"${own}"` : "no role"} there; only the instance's owner or who holds ${ADMINISTER_VERB} on it gives roles above their own or other than ${RANKED_ROLES.join(", ")}`,
      );
    }
  }
}

/** The best ranked role the rules give the caller inside: only rules granting `use` bind anyone. */
function bestRoleOf(user: UserInfo, rules: InsideRule[]): string | undefined {
  let best: string | undefined;
  for (const rule of rules) {
    const binds = (rule.verbs ?? []).some((v) => v === "use" || v === "*");
    const role = rule.clusterRole || DEFAULT_INSIDE_ROLE;
    if (binds && ruleNamesCaller({ ...rule, verbs: rule.verbs ?? [] }, user) && rank(role) > rank(best)) best = role;
  }
  return best;
}

function rank(role: string | undefined): number {
  return role ? (RANKED_ROLES as readonly string[]).indexOf(role) : -1;
}
