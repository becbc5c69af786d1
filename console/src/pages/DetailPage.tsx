import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { describeError, errorToShow } from "../api/client";
import { deleteObject } from "../api/resources";
import { type Cells, getWithCells } from "../api/table";
import type { Condition, KubeObject } from "../api/types";
import { AccessRules } from "../components/AccessRules";
import { DeleteDialog } from "../components/DeleteDialog";
import { navigateWithFlash } from "../components/flash";
import { AccessKeyPanel } from "../components/panels/AccessKeyPanel";
import { ClusterDependents, kubeconfigSecretOf } from "../components/panels/ClusterDependents";
import { ClusterPanel } from "../components/panels/ClusterPanel";
import { InstancePanel } from "../components/panels/InstancePanel";
import { ProjectPanel } from "../components/panels/ProjectPanel";
import { ProjectSecretSpaces } from "../components/panels/ProjectSecretSpaces";
import { SecretValues } from "../components/panels/SecretValues";
import { SubjectKeys } from "../components/panels/SubjectKeys";
import { YamlPanel } from "../components/YamlPanel";
import { displayName, type KindInfo, kindOf } from "../kinds";
import { useCan } from "../permissions";
import { Link } from "../router";
import { afterDelete } from "./after-delete";

export function DetailPage(props: { kind: KindInfo; name: string; namespace?: string }) {
  const { kind, name, namespace } = props;
  const queryClient = useQueryClient();
  const q = useQuery({
    queryKey: ["object", kind.plural, namespace ?? "", name, "with-cells"],
    // As a Table row with its object: the kind's list columns are facts here too.
    queryFn: () => getWithCells(kind, name, namespace),
    refetchInterval: 3000,
  });
  // The editor saves a merge patch of what changed (EditPage), so Edit needs the verb patch.
  const canUpdate = useCan("patch", kind.plural, { name, namespace });
  const canDelete = useCan("delete", kind.plural, { name, namespace });
  const [deleting, setDeleting] = useState(false);
  const [deleteSecret, setDeleteSecret] = useState(false);
  const [error, setError] = useState("");
  if (errorToShow(q.error))
    return (
      <section>
        <h1 className="mono">{name}</h1>
        <p role="alert" className="error">
          {describeError(q.error)}
        </p>
      </section>
    );
  if (!q.data) return <p>Loading…</p>;
  const { object: o, cells } = q.data;
  const base = kind.namespaced ? `/k/${kind.plural}/${enc(namespace)}/${enc(name)}` : `/k/${kind.plural}/${enc(name)}`;
  const remove = async (policy: string) => {
    try {
      const answer = await deleteObject(kind, name, namespace, policy);
      const secret = kind.plural === "clusters" && deleteSecret ? kubeconfigSecretOf(o) : undefined;
      if (secret) await deleteObject(kindOf("sharedsecrets")!, secret.name, secret.namespace, "Background");
      setDeleting(false);
      await queryClient.invalidateQueries({ queryKey: ["list", kind.plural] });
      const landing = afterDelete(kind, o, answer);
      navigateWithFlash(landing.path, landing.message);
    } catch (err) {
      setError(describeError(err));
      setDeleting(false);
    }
  };
  return (
    <section aria-busy={canUpdate === undefined || canDelete === undefined}>
      <div className="heading">
        <h1>
          {displayName(o) || o.metadata.name}
          <span className="sub mono">
            {kind.kind} {o.metadata.namespace ? `${o.metadata.namespace}/` : ""}
            {o.metadata.name}
          </span>
        </h1>
        {canUpdate && (
          <Link to={`${base}/edit`} className="button">
            Edit
          </Link>
        )}
        {canDelete && (
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        )}
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {deleting && (
        <DeleteDialog kind={kind} name={name} onCancel={() => setDeleting(false)} onConfirm={(p) => remove(p)}>
          {kind.plural === "clusters" && (
            <ClusterDependents cluster={o} deleteSecret={deleteSecret} onDeleteSecret={setDeleteSecret} />
          )}
        </DeleteDialog>
      )}
      <Lifecycle o={o} />
      <Overview kind={kind} o={o} cells={cells} />
      {kind.plural === "clusters" && <ClusterPanel cluster={o} />}
      {kind.plural === "ownedaccesskeys" && <AccessKeyPanel accessKey={o} />}
      {kind.secretFields.includes("spec.data") && <SecretValues secret={o} />}
      {kind.plural === "projectsecrets" && <ProjectSecretSpaces secret={o} />}
      {kind.plural === "projects" && <ProjectPanel project={o} />}
      {kind.plural === "virtualclusterinstances" && <InstancePanel instance={o} />}
      {(kind.plural === "users" || kind.plural === "teams") && <SubjectKeys kind={kind} name={name} />}
      {kind.access && <AccessRules rules={o.spec?.access} />}
      <Conditions conditions={o.status?.conditions} />
      <OwnerReferences o={o} />
      <YamlPanel o={o} />
    </section>
  );
}

/** Kinds whose panel below shows what their list columns show (each fact once). */
const KINDS_WITH_PANEL = new Set(["clusters", "virtualclusterinstances", "ownedaccesskeys"]);

function enc(s: string | undefined): string {
  return encodeURIComponent(s ?? "");
}

/** Terminating objects say what they wait for. */
function Lifecycle({ o }: { o: KubeObject }) {
  if (!o.metadata.deletionTimestamp) return null;
  const finalizers = o.metadata.finalizers ?? [];
  return (
    <p className="notice" role="status">
      Terminating since {o.metadata.deletionTimestamp}
      {finalizers.length > 0 ? `, waiting for finalizers: ${finalizers.join(", ")}` : ""}.
    </p>
  );
}

function Overview({ kind, o, cells }: { kind: KindInfo; o: KubeObject; cells: Cells }) {
  const rows: Array<[string, string]> = [
    ["Name", o.metadata.name ?? ""],
    ["Display name", displayName(o)],
    ["Description", String(o.spec?.description ?? "")],
    ...(KINDS_WITH_PANEL.has(kind.plural)
      ? []
      : kind.columns.map((name): [string, string] => [name, cells[name] ?? ""])),
    ["Created", o.metadata.creationTimestamp ?? ""],
    ["UID", o.metadata.uid ?? ""],
  ];
  if (kind.plural === "users" || kind.plural === "teams") {
    const roles = ((o.spec?.clusterRoles as Array<{ name: string }> | undefined) ?? []).map((r) => r.name);
    rows.push(["Cluster roles", roles.join(", ") || "none"]);
  }
  return (
    <dl className="facts">
      {rows
        .filter(([, v]) => v !== "")
        .map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      <div>
        <dt>Labels</dt>
        <dd>
          {Object.entries(o.metadata.labels ?? {}).map(([k, v]) => (
            <span className="badge" key={k}>
              {k}={v}
            </span>
          ))}
          {Object.keys(o.metadata.labels ?? {}).length === 0 && "none"}
        </dd>
      </div>
    </dl>
  );
}

function Conditions({ conditions }: { conditions?: Condition[] }) {
  if (!conditions?.length) return null;
  return (
    <>
      <h2>Conditions</h2>
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col">Reason</th>
              <th scope="col">Message</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {conditions.map((c) => (
              <tr key={c.type}>
                <td data-label="Type">{c.type}</td>
                <td data-label="Status">{c.status}</td>
                <td data-label="Reason">{c.reason}</td>
                <td data-label="Message">{c.message}</td>
                <td data-label="Since">{c.lastTransitionTime}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function OwnerReferences({ o }: { o: KubeObject }) {
  const refs = o.metadata.ownerReferences ?? [];
  if (!refs.length) return null;
  return (
    <>
      <h2>Owned by</h2>
      <ul>
        {refs.map((r) => (
          <li key={r.uid}>
            {r.kind} <span className="mono">{r.name}</span>
            {r.controller ? " (controller)" : ""}
          </li>
        ))}
      </ul>
    </>
  );
}
