export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }>;
  generateName?: string;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  // biome-ignore lint/suspicious/noExplicitAny: objects of every kind are shown and edited generically
  spec?: Record<string, any>;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  status?: Record<string, any>;
}

export interface KubeList {
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: KubeObject[];
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}
