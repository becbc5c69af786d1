/**
 * Why a space or virtual cluster is in its phase, said in words for the reasons the platform
 * writes (docs/spaces.md#status, docs/virtual-clusters.md); the status message follows with the
 * detail. A reason not listed here (a cluster's own, say) is split into words.
 */
const WORDS: Record<string, string> = {
  ClusterNotFound: "its cluster is not connected to the platform",
  ClusterUnreachable: "its cluster cannot be reached; the platform keeps trying",
  ClusterNotSet: "it names no cluster to run on",
  ConfigSecretNotFound: "the secret with its cluster's kube config is missing",
  Forbidden: "the cluster refuses the platform a right it needs",
  KindNotFound: "its template names a kind the cluster does not know",
  NamespaceNotOwned: "a namespace of that name already exists on the cluster and belongs to something else",
  NamespaceTerminating: "a namespace of that name is still being deleted on the cluster",
  NotNamespaced: "its template names an object that cannot live in a namespace",
  ParametersInvalid: "its parameters do not fit its template",
  RemoveFailed: "an object it no longer wants could not be removed from the cluster",
  TemplateNotFound: "its template does not exist",
  TemplateVersionNotFound: "its template has no such version",
  TLSVerificationFailed: "the cluster's certificate is not the one expected",
  Unauthorized: "the cluster refuses the platform's credentials",
  WorkloadNotReady: "its workload on the cluster is not ready yet",
  WorkloadReady: "its workload on the cluster is ready",
};

export function reasonInWords(reason: string): string {
  return WORDS[reason] ?? reason.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}
