import { isDeepStrictEqual } from "node:util";
import { ApiError } from "../../api/errors.js";
import { type KubeObject, setOwnProperty, specOf, statusOf } from "../../api/object.js";
import type { IdentityIndex } from "../../auth/identity-index.js";
import type { PlatformAuthorizer } from "../../authz/authorizer.js";
import {
  type ProjectSecretSpec,
  type ProjectSecretStatus,
  sourceSecretOf,
} from "../../kinds/project-secret/project-secret.js";
import { parseSetter } from "../../kinds/project-secret/source-setter.js";
import type { SharedSecretSpec } from "../../kinds/shared-secret/shared-secret.js";
import type { InformerEvent } from "../../registry/informer.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";
import type { SharedInformers } from "../../registry/shared-informers.js";
import { type ControllerLog, silentLog } from "../controller-log.js";
import { ControllerWiring } from "../controller-wiring.js";
import { WiredController } from "../wired-controller.js";
import { type Condition, withCondition, withoutCondition } from "./conditions.js";
import { keyOf, splitKey } from "./queue-keys.js";
import { setterIdentity } from "./setter-identity.js";

/** The field manager of the data the platform copies into project secrets. */
export const SOURCE_FIELD_MANAGER = "platform-project-secrets";
/** The condition reporting the copy from `spec.source` (docs/project-secrets.md). */
export const SYNCED_CONDITION = "Synced";

export interface SourceSyncOptions {
  /** How often every sourced project secret is checked again: a setter's lost right is seen within one. */
  resyncMs?: number;
}

/** What a project secret's data should be, and the condition saying so; `data` undefined: leave it. */
export interface SourceOutcome {
  data?: Record<string, string>;
  condition: Condition;
}

/**
 * The outcome for a sourced project secret: the shared secret's chosen keys while the setter may
 * read its data; otherwise the data stays as last copied and the condition says why. Only key
 * names appear in messages, never values.
 */
export function sourceOutcome(
  spec: ProjectSecretSpec,
  shared: KubeObject | undefined,
  setterMayRead: (shared: KubeObject) => boolean,
): SourceOutcome {
  const ref = sourceSecretOf(spec);
  const what = ref ? `shared secret ${ref.namespace}/${ref.name}` : "the shared secret";
  if (!shared) {
    return {
      condition: {
        type: SYNCED_CONDITION,
        status: "False",
        reason: "SourceNotFound",
        message: `${what} does not exist`,
      },
    };
  }
  if (!setterMayRead(shared)) {
    return {
      condition: {
        type: SYNCED_CONDITION,
        status: "False",
        reason: "SourceForbidden",
        message: `whoever set spec.source may no longer read the data of ${what}: the data is kept as last copied; set spec.source again to resume`,
      },
    };
  }
  const all = specOf<SharedSecretSpec>(shared).data ?? {};
  const keys = spec.source?.keys ?? Object.keys(all);
  const data: Record<string, string> = {};
  const missing: string[] = [];
  for (const key of keys) {
    if (Object.hasOwn(all, key))
      setOwnProperty(data, key, all[key]); // `__proto__` is a valid key
    else missing.push(key);
  }
  const condition: Condition = missing.length
    ? {
        type: SYNCED_CONDITION,
        status: "False",
        reason: "SourceKeysMissing",
        message: `${what} has no key ${missing.map((k) => JSON.stringify(k)).join(", ")}; the other keys are copied`,
      }
    : { type: SYNCED_CONDITION, status: "True", reason: "Synced", message: `equal to ${what}` };
  return { data, condition };
}

/**
 * Keeps each ProjectSecret that names a SharedSecret in `spec.source` equal to it (the keys it
 * names, or all), while whoever set the source (admission records them) may read the shared
 * secret's data, and reports it in the `Synced` condition. One queue key per project secret
 * (`namespace/name`): on start, when it changes, when its shared secret changes, and every
 * `resyncMs` (rights change through users, teams and access rules). Elected replica only.
 */
export class ProjectSecretSourceController extends WiredController {
  protected readonly wiring: ControllerWiring;

  constructor(
    private readonly registry: Registry,
    informers: SharedInformers,
    private readonly identity: Pick<IdentityIndex, "user" | "team" | "teamsOfUser">,
    private readonly authorizer: Pick<PlatformAuthorizer, "canReadSecretData">,
    options: SourceSyncOptions = {},
    log: ControllerLog = silentLog,
  ) {
    super();
    const secrets = informers.for("projectsecrets");
    const shared = informers.for("sharedsecrets");
    this.wiring = new ControllerWiring({
      controller: "project-secret-source",
      concurrency: 1,
      resyncMs: options.resyncMs ?? 60_000,
      log,
      process: (key) => this.reconcile(key),
      informers: [secrets, shared],
      keys: () =>
        secrets
          .list()
          .filter((ps) => specOf<ProjectSecretSpec>(ps).source)
          .map(keyOf),
      subscribe: (queue) => [
        secrets.onChange((e: InformerEvent) => {
          // Spec and annotation (the setter) changes matter; the controller's own status writes do not.
          if (e.type !== "upsert") return;
          const { old, object } = e;
          if (
            !isDeepStrictEqual(old?.spec, object.spec) ||
            !isDeepStrictEqual(old?.metadata.annotations, object.metadata.annotations)
          )
            queue.add(keyOf(object));
        }),
        shared.onChange((e: InformerEvent) => {
          const { namespace, name } = e.object.metadata;
          for (const ps of secrets.list()) {
            const src = sourceSecretOf(specOf<ProjectSecretSpec>(ps));
            if (src && src.namespace === namespace && src.name === name) queue.add(keyOf(ps));
          }
        }),
      ],
    });
  }

  private async reconcile(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const store = this.registry.store("projectsecrets");
    const ps = await store.read(namespace, name);
    if (!ps || ps.metadata.deletionTimestamp) return;
    const spec = specOf<ProjectSecretSpec>(ps);
    const ref = sourceSecretOf(spec);
    if (!ref) return this.writeCondition(namespace, name, undefined);
    const shared = await this.registry.store("sharedsecrets").read(ref.namespace, ref.name);
    const setter = parseSetter(ps);
    const user = setter && setterIdentity(this.identity, setter);
    const outcome = sourceOutcome(
      spec,
      shared,
      (obj) => !!user && this.authorizer.canReadSecretData(user, obj, "sharedsecrets"),
    );
    if (outcome.data && !isDeepStrictEqual(outcome.data, spec.data ?? {})) {
      const data = outcome.data;
      await store.guaranteedUpdate(
        systemContext(),
        namespace,
        name,
        (obj) => {
          // The source changed since it was read: the next event brings the right data.
          if (!isDeepStrictEqual(obj.spec?.source, spec.source)) return undefined;
          obj.spec = { ...obj.spec, data };
          return obj;
        },
        "",
        SOURCE_FIELD_MANAGER,
      );
    }
    if (!this.wiring.running) return;
    await this.writeCondition(namespace, name, outcome.condition);
  }

  private async writeCondition(namespace: string, name: string, condition: Condition | undefined): Promise<void> {
    try {
      await this.registry.store("projectsecrets").guaranteedUpdate(
        systemContext(),
        namespace,
        name,
        (obj) => {
          const status = statusOf<ProjectSecretStatus>(obj);
          const conditions = condition
            ? withCondition(status.conditions as Condition[] | undefined, condition, new Date())
            : withoutCondition(status.conditions as Condition[] | undefined, SYNCED_CONDITION);
          if (isDeepStrictEqual(conditions, status.conditions ?? [])) return undefined;
          obj.status = { ...status, conditions };
          return obj;
        },
        "status",
        SOURCE_FIELD_MANAGER,
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return; // deleted meanwhile
      throw err;
    }
  }
}
