import { isDeepStrictEqual } from "node:util";
import {
  DIRECT_ENDPOINT_ANNOTATION,
  DIRECT_ENDPOINT_CA_ANNOTATION,
  INGRESS_SUFFIX_ANNOTATION,
  VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION,
} from "../api/endpoint-annotations.js";
import { errors, type FieldError, fieldError } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import { ADMINISTER_VERB } from "../authz/authorizer.js";
import { type Authorizer, platformAttributes } from "../authz/contract.js";
import { DEFAULT_SECRET_NAMESPACE } from "../clusters/cluster-connection.js";
import type { ClusterSpec } from "../kinds/cluster/cluster.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { UserInfo } from "../registry/request-context.js";
import { caBundleProblem, endpointUrlProblem, hostSuffixProblem } from "./endpoint-values.js";
import { platformPlural } from "./resource-match.js";

/**
 * A setting that decides where other users' traffic or tokens go: its field path, its value in
 * an object (undefined when unset), and what is wrong with a value (undefined: nothing).
 */
interface EndpointSetting {
  field: string;
  valueOf(obj: KubeObject | undefined): unknown;
  problem?(value: unknown, allowLocal: boolean): string | undefined;
}

const annotation = (key: string) => (obj: KubeObject | undefined) => obj?.metadata.annotations?.[key];
const url: EndpointSetting["problem"] = (v, allowLocal) => endpointUrlProblem(String(v), allowLocal);

/** The table of docs/security.md ("Endpoints other users' traffic and tokens follow"), by resource. */
const SETTINGS: Record<string, EndpointSetting[]> = {
  clusters: [
    // Where `platform use cluster --direct` sends every user's fresh token, and which server it trusts.
    {
      field: `metadata.annotations[${DIRECT_ENDPOINT_ANNOTATION}]`,
      valueOf: annotation(DIRECT_ENDPOINT_ANNOTATION),
      problem: url,
    },
    {
      field: `metadata.annotations[${DIRECT_ENDPOINT_CA_ANNOTATION}]`,
      valueOf: annotation(DIRECT_ENDPOINT_CA_ANNOTATION),
      problem: (v) => caBundleProblem(String(v)),
    },
    // The host of every virtual cluster's kube config and of the gateway's requests to it.
    {
      field: `metadata.annotations[${INGRESS_SUFFIX_ANNOTATION}]`,
      valueOf: annotation(INGRESS_SUFFIX_ANNOTATION),
      problem: (v) => hostSuffixProblem(String(v)),
    },
    // The kubeconfig (server and credentials) the gateway forwards every user's requests with.
    { field: "spec.config", valueOf: configOf },
    // The platform's own in-cluster credentials instead of a kubeconfig.
    { field: "spec.local", valueOf: (obj) => (specOf<ClusterSpec>(obj).local === true ? true : undefined) },
  ],
  virtualclusterinstances: [
    // Where the gateway sends every user's requests to the virtual cluster.
    {
      field: `metadata.annotations[${VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION}]`,
      valueOf: annotation(VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION),
      problem: url,
    },
  ],
};

function configOf(obj: KubeObject | undefined): unknown {
  const config = specOf<ClusterSpec>(obj).config;
  if (!config?.secretName) return undefined;
  return { secretName: config.secretName, secretNamespace: config.secretNamespace || DEFAULT_SECRET_NAMESPACE };
}

/**
 * Settings that steer other users' traffic or tokens (the endpoint annotations, a cluster's
 * kubeconfig reference and `spec.local`) need the right to administer the object: `administer`
 * on it as it was (403), and endpoint values `https` only, never a local address unless
 * `--allow-local-endpoints` (422). Only a setting that is new, changed or removed is checked, so
 * whoever may update the object keeps editing its other fields.
 */
export class EndpointSettingsAdmission implements AdmissionPlugin {
  readonly name = "EndpointSettings";

  constructor(
    private readonly authz: Pick<Authorizer, "authorize">,
    /** `--allow-local-endpoints`. */
    private readonly allowLocal: boolean,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (isServerWrite(attrs) || attrs.operation === "DELETE") return;
    const resource = platformPlural(attrs);
    if (resource === undefined) return;
    const settings = SETTINGS[resource];
    if (!settings) return;
    const { object: obj, oldObject: old } = attrs;
    const changed = settings.filter((s) => !isDeepStrictEqual(s.valueOf(obj), s.valueOf(old)));
    if (changed.length === 0) return;
    await this.requireAdminister(attrs.user, resource, old ?? withoutGrants(obj), changed[0]!.field);
    const problems: FieldError[] = [];
    for (const s of changed) {
      const value = s.valueOf(obj);
      const problem = value === undefined ? undefined : s.problem?.(value, this.allowLocal);
      if (problem) problems.push(fieldError("FieldValueInvalid", s.field, problem, value));
    }
    if (problems.length > 0) {
      throw errors.invalid(attrs.resourceType.kind, GROUP, obj.metadata.name ?? "", problems);
    }
  }

  /** 403 unless the caller holds `administer` on `base` (the stored object; a new one without the grants it brings). */
  private async requireAdminister(user: UserInfo, resource: string, base: KubeObject, field: string): Promise<void> {
    const namespace = base.metadata.namespace ?? "";
    const decision = await this.authz.authorize(
      user,
      platformAttributes(ADMINISTER_VERB, resource, { namespace, name: base.metadata.name, object: base }),
    );
    if (decision.allowed) return;
    const where = namespace ? ` in the namespace "${namespace}"` : "";
    throw errors.forbidden(
      { group: GROUP, resource },
      base.metadata.name ?? "",
      `User "${user.name}" cannot ${ADMINISTER_VERB} resource "${resource}" in API group "${GROUP}"${where}, which setting ${field} needs: other users' requests or tokens follow it`,
    );
  }
}

/** A new object without the access rules it brings: they cannot grant their own writer anything. */
function withoutGrants(obj: KubeObject): KubeObject {
  const spec = { ...(obj.spec ?? {}) };
  delete spec.access;
  return { ...obj, spec };
}
