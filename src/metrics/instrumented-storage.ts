/**
 * Times every request to the store beneath the watch cache: etcd_request_duration_seconds for
 * etcd (kube-apiserver's name), platform_sqlite_request_duration_seconds for the embedded store.
 * `type` is the resource of the key (kube-apiserver uses the object type).
 */
import type {
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  TxnOp,
  TxnResult,
  WatchCallbacks,
  Watcher,
  WatchOptions,
} from "../storage/interface.js";
import type { LabeledHistogram } from "./labeled-series.js";

/** `/registry/<group>/<plural>/…` → `<plural>.<group>` (other keys: as they are, up to 64 characters). */
export function typeOfKey(key: string): string {
  // By hand rather than a regular expression: every storage call is timed.
  const REGISTRY = "/registry/";
  if (key.startsWith(REGISTRY)) {
    const slash = key.indexOf("/", REGISTRY.length);
    if (slash > REGISTRY.length) {
      const end = key.indexOf("/", slash + 1);
      const plural = key.slice(slash + 1, end < 0 ? key.length : end);
      if (plural !== "") return `${plural}.${key.slice(REGISTRY.length, slash)}`;
    }
  }
  return key.slice(0, 64);
}

export class InstrumentedStorage implements Storage {
  readonly currentRevisionNow?: () => number;
  /**
   * The revision check last timed. On etcd the callers of about the same moment share one check
   * (one answer, one promise): it is one request to the store, observed once, not once per caller.
   */
  private timedRevisionCheck: Promise<number> | undefined;

  constructor(
    readonly inner: Storage,
    private readonly histogram: LabeledHistogram,
  ) {
    const now = inner.currentRevisionNow?.bind(inner);
    if (now) this.currentRevisionNow = now;
  }

  /** Group commits of the embedded store (the bench reads it). */
  get commits(): number | undefined {
    return (this.inner as { commits?: number }).commits;
  }

  private timed<T>(operation: string, key: string, p: Promise<T>): Promise<T> {
    const start = performance.now();
    const series = this.histogram.series({ operation, type: typeOfKey(key) });
    const done = () => this.histogram.observe(series, (performance.now() - start) / 1000);
    p.then(done, done);
    return p;
  }

  create(key: string, value: Buffer): Promise<number> {
    return this.timed("create", key, this.inner.create(key, value));
  }
  get(key: string): Promise<KeyValue | undefined> {
    return this.timed("get", key, this.inner.get(key));
  }
  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.timed("list", prefix, this.inner.list(prefix, options));
  }
  update(key: string, value: Buffer, expectedModRevision: number): Promise<number> {
    return this.timed("update", key, this.inner.update(key, value, expectedModRevision));
  }
  delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    return this.timed("delete", key, this.inner.delete(key, expectedModRevision));
  }
  txn(ops: readonly TxnOp[]): Promise<TxnResult> {
    return this.timed("txn", ops[0]?.key ?? "", this.inner.txn(ops));
  }
  watch(prefix: string, options: WatchOptions, callbacks: WatchCallbacks): Watcher {
    return this.inner.watch(prefix, options, callbacks);
  }
  currentRevision(): Promise<number> {
    const check = this.inner.currentRevision();
    if (check === this.timedRevisionCheck) return check;
    this.timedRevisionCheck = check;
    return this.timed("currentRevision", "", check);
  }
  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }
  compact(revision: number): Promise<void> {
    return this.timed("compact", "", this.inner.compact(revision));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
