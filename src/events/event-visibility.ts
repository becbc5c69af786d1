import { API_VERSION, GROUP } from "../api/object.js";
import type { Authorizer, RequestAttributes } from "../authz/contract.js";
import type { Registry } from "../registry/registry.js";
import type { UserInfo } from "../registry/request-context.js";
import type { ReaderFilter, ResourceType } from "../registry/resource-type.js";
import { eventResource, type InvolvedObject } from "./event-type.js";

/** Whether one caller may see one Event; answers are kept per involved object for one request. */
export type EventFilter = ReaderFilter;

/** What decides who sees an Event: the platform's kinds and its authorizer (reached once requests run). */
export interface EventReaders {
  registry: () => Registry;
  authorizer: () => Authorizer;
}

/** The Event kind as the API serves it: each reader sees the Events about objects they may get. */
export function servedEventResource(readers: EventReaders): ResourceType {
  return {
    ...eventResource,
    readerFilter: (user) => eventFilterFor(readers.registry(), readers.authorizer(), user),
  };
}

/**
 * An Event is shown to whoever may `get` the object it is about, and to nobody else: its
 * message says what happened to that object. Access rules kept on the object itself are
 * honoured while the object exists (and is the same object: same uid); an Event about a
 * deleted object is shown to those the kind-, namespace- and name-wide rules let get it.
 */
export function eventFilterFor(registry: Registry, authorizer: Authorizer, user: UserInfo): EventFilter {
  const answers = new Map<string, Promise<boolean>>();
  return (event) => {
    const ref = (event.involvedObject ?? {}) as Partial<InvolvedObject>;
    const key = `${ref.apiVersion}|${ref.kind}|${ref.namespace ?? ""}|${ref.name}|${ref.uid ?? ""}`;
    let answer = answers.get(key);
    if (!answer) {
      answer = mayGet(registry, authorizer, user, ref);
      answers.set(key, answer);
    }
    return answer;
  };
}

async function mayGet(
  registry: Registry,
  authorizer: Authorizer,
  user: UserInfo,
  ref: Partial<InvolvedObject>,
): Promise<boolean> {
  // Only the platform writes Events, and only about its own kinds.
  if (ref.apiVersion !== API_VERSION || !ref.kind || !ref.name) return false;
  const rt = registry.resourceTypes().find((t) => t.kind === ref.kind);
  if (!rt) return false;
  const namespace = rt.namespaced ? (ref.namespace ?? "") : "";
  const attrs: RequestAttributes = {
    verb: "get",
    apiGroup: GROUP,
    resource: rt.plural,
    subresource: "",
    namespace,
    name: ref.name,
    resourceRequest: true,
  };
  if ((await authorizer.authorize(user, attrs)).allowed) return true;
  if (!authorizer.needsObject?.(user, attrs)) return false;
  const obj = await registry.store(rt.plural).read(rt.namespaced ? namespace : undefined, ref.name);
  if (!obj || (ref.uid && obj.metadata.uid !== ref.uid)) return false;
  return (await authorizer.authorize(user, { ...attrs, object: obj })).allowed;
}
