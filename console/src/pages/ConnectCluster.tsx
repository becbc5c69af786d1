import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { API, ApiError, request } from "../api/client";
import type { KubeObject } from "../api/types";
import { errorSummary } from "../components/error-summary";
import { navigateWithFlash } from "../components/flash";
import { toBase64 } from "./EditPage";

/**
 * Connect a cluster: the pasted kube config becomes a SharedSecret (data key `config`, in
 * namespace platform) and a Cluster that names it, which then owns the secret; the server checks
 * the connection.
 */
export function ConnectCluster() {
  const id = useId();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [kubeconfig, setKubeconfig] = useState("");
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    const secretName = `${name}-kubeconfig`;
    const secretPath = `${API}/namespaces/platform/sharedsecrets/${encodeURIComponent(secretName)}`;
    let madeSecret = false;
    try {
      await request("POST", `${API}/namespaces/platform/sharedsecrets`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "SharedSecret",
          metadata: { name: secretName, namespace: "platform" },
          spec: { displayName: `Kube config of ${displayName || name}`, data: { config: toBase64(kubeconfig) } },
        },
      });
      madeSecret = true;
      const cluster = await request<KubeObject>("POST", `${API}/clusters`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "Cluster",
          metadata: { name },
          spec: { ...(displayName ? { displayName } : {}), config: { secretName } },
        },
      });
      // The secret belongs to the cluster: deleting the cluster deletes its credentials too.
      const owner = { apiVersion: "management.platform/v1", kind: "Cluster", name, uid: cluster.metadata.uid };
      await request("PATCH", secretPath, {
        body: { metadata: { ownerReferences: [owner] } },
        contentType: "application/merge-patch+json",
      });
      await queryClient.invalidateQueries({ queryKey: ["list"] });
      navigateWithFlash(`/k/clusters/${encodeURIComponent(name)}`, `Cluster ${name} connected; checking it now.`);
    } catch (err) {
      // A cluster that could not be made leaves no secret with its credentials behind.
      if (madeSecret) await request("DELETE", secretPath).catch(() => undefined);
      setError(err);
    }
  };
  const nameError = error instanceof ApiError ? error.fieldErrors().get("metadata.name") : undefined;
  return (
    <section>
      <h1>Connect a cluster</h1>
      <p>
        Paste a kube config whose current context reaches the cluster with a token or client certificate. It is kept
        encrypted in the shared secret <span className="mono">platform/NAME-kubeconfig</span>.
      </p>
      <form onSubmit={submit} className="edit-form">
        <div className="field">
          <label htmlFor={`${id}-n`}>Name</label>
          <input id={`${id}-n`} value={name} required onChange={(e) => setName(e.target.value)} />
          {nameError && <p className="field-error">{nameError}</p>}
        </div>
        <div className="field">
          <label htmlFor={`${id}-d`}>Display name</label>
          <input id={`${id}-d`} value={displayName} onChange={(e) => setDisplayName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-k`}>Kube config</label>
          <textarea
            id={`${id}-k`}
            className="yaml"
            spellCheck={false}
            required
            value={kubeconfig}
            onChange={(e) => setKubeconfig(e.target.value)}
          />
        </div>
        {error !== undefined && (
          <p role="alert" className="error">
            {errorSummary(error, ["metadata.name"])}
          </p>
        )}
        <button type="submit" className="primary">
          Connect
        </button>
      </form>
    </section>
  );
}
