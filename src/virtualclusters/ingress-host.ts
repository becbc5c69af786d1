/**
 * The host name of a virtual cluster instance under its cluster's ingress suffix
 * (docs/virtual-clusters.md, "The host of a virtual cluster"): `<instance>.<project>.<suffix>`.
 *
 * A project's name is a DNS-1123 label (no dot), so the label just before the suffix is always
 * the project and everything before it the instance: no two instances share a host. Joining the
 * two with '-' in one label (`<instance>-<project>`, the form before this one) did not tell
 * instance "db-x" of project "a" from instance "db" of project "x-a", and could pass the 63
 * characters a DNS label may hold.
 */
export function ingressHost(instance: string, project: string, suffix: string): string {
  return `${instance}.${project}.${suffix}`;
}

/** The URL the kube config action hands out and the gateway reaches when the instance names no endpoint of its own. */
export function ingressEndpoint(instance: string, project: string, suffix: string): string {
  return `https://${ingressHost(instance, project, suffix)}`;
}
