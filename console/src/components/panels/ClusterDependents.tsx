import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { API, ApiError, errorToShow, request } from "../../api/client";
import { describeReadError } from "../../api/read-error";
import type { KubeList, KubeObject } from "../../api/types";

/** The shared secret a cluster reads its kube config from (spec.config; namespace platform by default). */
export function kubeconfigSecretOf(cluster: KubeObject): { namespace: string; name: string } | undefined {
  const config = cluster.spec?.config as { secretName?: string; secretNamespace?: string } | undefined;
  if (!config?.secretName) return undefined;
  return { namespace: config.secretNamespace || "platform", name: config.secretName };
}

/** Whether the secret is owned by the cluster (the connect flow makes it so): the garbage collector then deletes it. */
export function ownedBy(obj: KubeObject | undefined, owner: KubeObject): boolean {
  return !!obj?.metadata.ownerReferences?.some((r) => r.uid === owner.metadata.uid);
}

/**
 * What depends on a cluster, said before it is deleted: the virtual cluster instances placed on it
 * (they stay, pointing at a cluster that is gone) and the shared secret with its credentials.
 */
export function ClusterDependents(props: {
  cluster: KubeObject;
  deleteSecret: boolean;
  onDeleteSecret: (v: boolean) => void;
}) {
  const id = useId();
  const name = props.cluster.metadata.name ?? "";
  const secretRef = kubeconfigSecretOf(props.cluster);
  const instances = useQuery({
    queryKey: ["cluster-dependents", name],
    queryFn: async () => {
      const list = await request<KubeList>("GET", `${API}/virtualclusterinstances?limit=500`);
      return list.items.filter((i) => i.spec?.clusterRef?.cluster === name);
    },
  });
  const secret = useQuery({
    queryKey: ["cluster-secret", secretRef?.namespace, secretRef?.name],
    queryFn: () =>
      request<KubeObject>(
        "GET",
        `${API}/namespaces/${encodeURIComponent(secretRef!.namespace)}/sharedsecrets/${encodeURIComponent(secretRef!.name)}`,
      ).catch((err) => {
        // Gone already: nothing to delete with it. Any other failure is said, not taken for that.
        if (err instanceof ApiError && err.code === 404) return null;
        throw err;
      }),
    enabled: !!secretRef,
  });
  const secretName = secretRef ? `${secretRef.namespace}/${secretRef.name}` : "";
  return (
    <div className="dependents">
      <h3>What depends on it</h3>
      {instances.isPending && <p>Looking for virtual clusters on it…</p>}
      {!!errorToShow(instances.error) && (
        <p role="alert" className="error">
          {describeReadError(instances.error, "the virtual clusters")} Whether any runs on it is not known.
        </p>
      )}
      {instances.data && instances.data.length === 0 && <p>No virtual cluster runs on it.</p>}
      {instances.data && instances.data.length > 0 && (
        <>
          <p>
            {instances.data.length === 1 ? "1 virtual cluster runs" : `${instances.data.length} virtual clusters run`}{" "}
            on it. They are not deleted and can no longer be reached:
          </p>
          <ul>
            {instances.data.map((i) => (
              <li key={i.metadata.uid} className="mono">
                {i.metadata.namespace}/{i.metadata.name}
              </li>
            ))}
          </ul>
        </>
      )}
      {secretRef && !!errorToShow(secret.error) && (
        <p role="alert" className="error">
          {describeReadError(secret.error, `the shared secret ${secretName}`)} Whether it goes with the cluster is not
          known.
        </p>
      )}
      {secretRef && secret.data && ownedBy(secret.data, props.cluster) && (
        <p>
          The shared secret <span className="mono">{secretName}</span> (its kube config and credentials) belongs to it
          and is deleted with it, unless you choose Orphan below.
        </p>
      )}
      {secretRef && secret.data && !ownedBy(secret.data, props.cluster) && (
        <label className="check" htmlFor={id}>
          <input
            id={id}
            type="checkbox"
            checked={props.deleteSecret}
            onChange={(e) => props.onDeleteSecret(e.target.checked)}
          />
          Also delete the shared secret <span className="mono">{secretName}</span> (its kube config and credentials)
        </label>
      )}
    </div>
  );
}
