import type { KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { CopyButton } from "../CopyButton";

/** The cluster annotation that records the URL of the cluster's agent (`platform agent`). */
const DIRECT_ENDPOINT_ANNOTATION = "management.platform/direct-cluster-endpoint";
/** Projects keep their virtual cluster instances in namespace `p-<project>`. */
const PROJECT_NAMESPACE_PREFIX = "p-";

/** How to point kubectl at a connected cluster: through the gateway, and straight to its agent when it has one. */
export function ClusterConnect({ cluster }: { cluster: KubeObject }) {
  const name = cluster.metadata.name ?? "";
  const origin = window.location.origin;
  const agent = cluster.metadata.annotations?.[DIRECT_ENDPOINT_ANNOTATION];
  const canUse = useCan("use", "clusters", { name });
  if (canUse === false) {
    return (
      <section aria-labelledby="connect-cluster">
        <h2 id="connect-cluster">Connect with kubectl</h2>
        <p>You may not use this cluster: its access rules (or a cluster role) must grant you the verb use.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="connect-cluster">
      <h2 id="connect-cluster">Connect with kubectl</h2>
      <p>
        Sign in with the platform CLI, then add a kubectl context that reaches this cluster through the platform (your
        access key; the cluster's own credentials stay on the server):
      </p>
      <Snippet
        text={`platform login ${origin} --access-key "$KEY"\nplatform use cluster ${name}\nkubectl get pods -A`}
      />
      {agent && (
        <>
          <p>
            Or straight to the cluster's agent at <code>{agent}</code>, with a short-lived direct token:
          </p>
          <Snippet text={`platform use cluster ${name} --direct`} />
        </>
      )}
      <p>
        By hand: the Kubernetes API base URL is <code>{`${origin}/kubernetes/cluster/${name}`}</code>, with your access
        key as the bearer token.
      </p>
    </section>
  );
}

/** How to point kubectl at a virtual cluster through the gateway. */
export function VirtualClusterConnect({ instance }: { instance: KubeObject }) {
  const name = instance.metadata.name ?? "";
  const ns = instance.metadata.namespace ?? "";
  if (!ns.startsWith(PROJECT_NAMESPACE_PREFIX)) return null;
  const project = ns.slice(PROJECT_NAMESPACE_PREFIX.length);
  const origin = window.location.origin;
  return (
    <section aria-labelledby="connect-vcluster">
      <h2 id="connect-vcluster">Connect with kubectl</h2>
      <p>
        Sign in with the platform CLI, then add a kubectl context that reaches this virtual cluster through the
        platform:
      </p>
      <Snippet
        text={`platform login ${origin} --access-key "$KEY"\nplatform use vcluster ${name} --project ${project}\nkubectl get ns`}
      />
      <p>
        By hand: the Kubernetes API base URL is{" "}
        <code>{`${origin}/kubernetes/project/${project}/virtualcluster/${name}`}</code>, with your access key as the
        bearer token.
      </p>
    </section>
  );
}

/** Commands to paste into a shell, with a button that copies them. */
function Snippet({ text }: { text: string }) {
  return (
    <div className="snippet">
      <pre className="code">{text}</pre>
      <CopyButton text={text} label="Copy commands" />
    </div>
  );
}
