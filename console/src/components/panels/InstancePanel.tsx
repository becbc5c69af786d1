import { type FormEvent, useId, useState } from "react";
import { API, describeError, request } from "../../api/client";
import type { KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { navigate } from "../../router";
import { VirtualClusterConnect } from "./ConnectInstructions";

/** A virtual cluster instance: download a kube config for it, move it to another project. */
export function InstancePanel({ instance }: { instance: KubeObject }) {
  const ns = instance.metadata.namespace ?? "";
  const name = instance.metadata.name ?? "";
  const canUse = useCan("use", "virtualclusterinstances", { name, namespace: ns });
  const canDelete = useCan("delete", "virtualclusterinstances", { name, namespace: ns });
  return (
    <>
      <h2>Status</h2>
      <p>
        Phase <span className="badge">{String(instance.status?.phase ?? "unknown")}</span>{" "}
        {String(instance.status?.message ?? "")}
      </p>
      {canUse && <VirtualClusterConnect instance={instance} />}
      {canUse && <KubeConfigDownload namespace={ns} name={name} />}
      {canDelete && <MoveInstance namespace={ns} name={name} />}
    </>
  );
}

function KubeConfigDownload({ namespace, name }: { namespace: string; name: string }) {
  const id = useId();
  const [hours, setHours] = useState("24");
  const [error, setError] = useState("");
  const [link, setLink] = useState<string>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError("");
    try {
      const res = await request<KubeObject>(
        "POST",
        `${API}/namespaces/${encodeURIComponent(namespace)}/virtualclusterinstances/${encodeURIComponent(name)}/kubeconfig`,
        {
          body: {
            apiVersion: "management.platform/v1",
            kind: "VirtualClusterInstanceKubeConfig",
            spec: { certificateTTL: Math.round(Number(hours) * 3600) },
          },
        },
      );
      const blob = new Blob([String(res.status?.kubeConfig ?? "")], { type: "application/yaml" });
      const url = URL.createObjectURL(blob);
      setLink(url);
      const a = document.createElement("a");
      a.href = url;
      a.download = `${name}.kubeconfig`;
      a.click();
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <form onSubmit={submit} className="inline-form">
      <h2>Kube config</h2>
      <label htmlFor={id}>Certificate valid for (hours)</label>
      <input id={id} type="number" min="1" value={hours} onChange={(e) => setHours(e.target.value)} />
      <button type="submit">Download kube config</button>
      {link && (
        <a href={link} download={`${name}.kubeconfig`}>
          Download again
        </a>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </form>
  );
}

function MoveInstance({ namespace, name }: { namespace: string; name: string }) {
  const id = useId();
  const [target, setTarget] = useState("");
  const [error, setError] = useState("");
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError("");
    try {
      await request("POST", `${API}/projects/${encodeURIComponent(target)}/migratevirtualclusterinstance`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "ProjectMigrateVirtualClusterInstance",
          metadata: { name: target },
          sourceVirtualClusterInstance: { name, namespace },
        },
      });
      navigate(`/k/virtualclusterinstances/p-${encodeURIComponent(target)}/${encodeURIComponent(name)}`);
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <form onSubmit={submit} className="inline-form">
      <h2>Move to another project</h2>
      <label htmlFor={id}>Target project</label>
      <input id={id} value={target} onChange={(e) => setTarget(e.target.value)} required />
      <button type="submit">Move</button>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </form>
  );
}
