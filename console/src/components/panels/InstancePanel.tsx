import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { API, ApiError, describeError, request } from "../../api/client";
import type { KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { Link } from "../../router";
import { navigateWithFlash } from "../flash";
import { parseHours } from "../hours";
import { InstancePhase } from "../instances/InstancePhase";
import { ObjectEvents } from "../ObjectEvents";
import { VirtualClusterConnect } from "./ConnectInstructions";
import { InstanceSleep } from "./InstanceSleep";

/** A virtual cluster instance: download a kube config for it, move it to another project. */
export function InstancePanel({ instance }: { instance: KubeObject }) {
  const ns = instance.metadata.namespace ?? "";
  const name = instance.metadata.name ?? "";
  const canUse = useCan("use", "virtualclusterinstances", { name, namespace: ns });
  const project = ns.startsWith("p-") ? ns.slice(2) : undefined;
  const cluster = instance.spec?.clusterRef?.cluster as string | undefined;
  // Its status is the last one observed: a cluster deleted since leaves it as it was.
  const clusterCheck = useQuery({
    queryKey: ["object", "clusters", "", cluster],
    queryFn: () => request<KubeObject>("GET", `${API}/clusters/${encodeURIComponent(cluster ?? "")}`),
    enabled: !!cluster,
    retry: false,
  });
  const clusterGone = clusterCheck.error instanceof ApiError && clusterCheck.error.code === 404;
  const canDelete = useCan("delete", "virtualclusterinstances", { name, namespace: ns });
  return (
    <>
      <h2>Status</h2>
      <dl className="facts">
        <div>
          <dt>Phase</dt>
          <dd>
            <InstancePhase instance={instance} />
          </dd>
        </div>
        <div>
          <dt>Project</dt>
          <dd>{project ? <Link to={`/k/projects/${encodeURIComponent(project)}`}>{project}</Link> : "none"}</dd>
        </div>
        <div>
          <dt>Cluster</dt>
          <dd>
            {cluster ? <Link to={`/k/clusters/${encodeURIComponent(cluster)}`}>{cluster}</Link> : "not placed"}
            {clusterGone && (
              <span className="badge bad">
                deleted: this virtual cluster cannot be reached, whatever its phase says
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt>Namespace on the cluster</dt>
          <dd className="mono">{String(instance.spec?.clusterRef?.namespace ?? "") || "none"}</dd>
        </div>
        <div>
          <dt>Template</dt>
          <dd>{templateText(instance)}</dd>
        </div>
      </dl>
      <InstanceSleep instance={instance} />
      {canUse && <VirtualClusterConnect instance={instance} />}
      {canUse && <KubeConfigDownload namespace={ns} name={name} />}
      {canDelete && <MoveInstance namespace={ns} name={name} />}
      <ObjectEvents o={instance} />
    </>
  );
}

/** Which template and version the instance asks for: a pinned version, or the newest one followed. */
function templateText(instance: KubeObject): string {
  if (instance.spec?.template) return "inline (its own objects)";
  const ref = instance.spec?.templateRef as { name?: string; version?: string } | undefined;
  if (!ref?.name) return instance.spec?.external ? "none: imported" : "none";
  const pinned = ref.version && ref.version !== "latest";
  return pinned ? `${ref.name}, version ${ref.version} (pinned)` : `${ref.name}, newest version (followed)`;
}

function KubeConfigDownload({ namespace, name }: { namespace: string; name: string }) {
  const id = useId();
  const [hours, setHours] = useState("24");
  const [hoursError, setHoursError] = useState("");
  const [error, setError] = useState("");
  const [link, setLink] = useState<string>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError("");
    setHoursError("");
    const ttl = parseHours(hours);
    if ("error" in ttl) {
      setHoursError(ttl.error);
      return;
    }
    try {
      const res = await request<KubeObject>(
        "POST",
        `${API}/namespaces/${encodeURIComponent(namespace)}/virtualclusterinstances/${encodeURIComponent(name)}/kubeconfig`,
        {
          body: {
            apiVersion: "management.platform/v1",
            kind: "VirtualClusterInstanceKubeConfig",
            spec: { certificateTTL: ttl.seconds },
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
      <input
        id={id}
        inputMode="decimal"
        value={hours}
        aria-invalid={!!hoursError}
        aria-describedby={hoursError ? `${id}-err` : undefined}
        onChange={(e) => setHours(e.target.value)}
      />
      {hoursError && (
        <p className="field-error" id={`${id}-err`}>
          {hoursError}
        </p>
      )}
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
      navigateWithFlash(
        `/k/virtualclusterinstances/p-${encodeURIComponent(target)}/${encodeURIComponent(name)}`,
        `Moved ${name} to project ${target}.`,
      );
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
