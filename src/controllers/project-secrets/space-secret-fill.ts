import { applyNeeded } from "../../clusters/apply-needed.js";
import { classifyError, withDeadline } from "../../clusters/cluster-connection.js";
import type { ClusterObjectClient, RawObject } from "../../clusters/object-client.js";
import { PROJECT_SECRET_LABEL } from "../../kinds/project-secret/project-secret.js";
import { secretFailureMessage } from "./quoted-data.js";

/** The field manager of the data the platform applies into Secrets of spaces. */
export const FILL_FIELD_MANAGER = "platform-project-secrets";

/** What one labelled Secret should hold: the project secret's data, or undefined to hold none of it. */
export type WantedData = (projectSecret: string) => Record<string, string> | undefined;

/** A Secret as the client lists and applies it: its data base64, as on the wire. */
type SecretObject = RawObject & { data?: Record<string, string> };

/** How filling one space's namespace went, per project secret its Secrets name. */
export interface FillOutcome {
  /** Project secret name → the labelled Secrets filled with its data. */
  filled: Map<string, string[]>;
  /** Project secret name → the labelled Secrets applied without its data (`wanted` gave none). */
  emptied: Map<string, string[]>;
  /** Project secret name → the first failure of one of its Secrets. */
  failed: Map<string, { reason: string; message: string }>;
}

/**
 * Fills every Secret of `namespace` that carries PROJECT_SECRET_LABEL with the data `wanted`
 * gives for the project secret the label names, by server-side apply under FILL_FIELD_MANAGER
 * (forced: the platform owns those keys). A Secret whose project secret gives no data (gone, or
 * not for this space) gets an apply without data, which removes the keys the platform put there
 * and leaves everyone else's. A Secret that already holds what it should, with those keys the
 * platform's (apply-needed.ts), is not written. Secrets without the label are never listed, so
 * never touched.
 * Throws when the list fails (the cluster is unreachable or refuses): nothing was done. `where`
 * is how messages name the cluster (its name: they reach the project secrets' readers).
 */
export async function fillSpaceSecrets(
  api: ClusterObjectClient,
  where: string,
  namespace: string,
  wanted: WantedData,
  timeoutMs: number,
): Promise<FillOutcome> {
  const call = <T>(p: Promise<T>) => withDeadline(p, timeoutMs, where);
  const labelled = await call(api.list("v1", "Secret", { namespace, labelSelector: PROJECT_SECRET_LABEL }));
  const outcome: FillOutcome = { filled: new Map(), emptied: new Map(), failed: new Map() };
  for (const secret of labelled as SecretObject[]) {
    const name = secret.metadata?.name ?? "";
    const projectSecret = secret.metadata?.labels?.[PROJECT_SECRET_LABEL] ?? "";
    const data = wanted(projectSecret);
    const manifest = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name, namespace },
      ...(data ? { data } : {}),
    };
    try {
      if (applyNeeded(manifest, secret, FILL_FIELD_MANAGER)) {
        await call(api.apply(manifest, FILL_FIELD_MANAGER));
      }
      const done = data ? outcome.filled : outcome.emptied;
      done.set(projectSecret, [...(done.get(projectSecret) ?? []), name]);
    } catch (err) {
      const e = classifyError(err, where);
      if (!outcome.failed.has(projectSecret)) {
        // The cluster's words may quote the object it refused: what was applied and what the Secret held.
        const message = secretFailureMessage(name, e.message, [data, secret.data]);
        outcome.failed.set(projectSecret, { reason: e.reason, message });
      }
    }
  }
  return outcome;
}
