/**
 * Many callers, few round trips: a read that every caller needs to have *started after it
 * asked* (a linearizable "what is the store's revision now?"), shared between the callers that
 * ask at about the same time.
 *
 * A caller that arrives while a read is in flight cannot use that read's answer: it was sent
 * before the caller asked, so a write acknowledged in between might be missing from it. It joins
 * the next read instead, which starts as soon as the one in flight returns. So at most two reads
 * are outstanding, one round trip serves everyone who arrived during the previous one, and every
 * answer is at least as new as anything acknowledged before its caller asked (kube-apiserver's
 * consistent reads from cache batch their etcd revision checks the same way).
 */
export class CoalescedRead<T> {
  private running: Promise<T> | undefined;
  private next: Promise<T> | undefined;
  /** Round trips made (for tests and the bench). */
  reads = 0;

  constructor(private readonly read: () => Promise<T>) {}

  /** The answer of a read that started no earlier than this call. */
  get(): Promise<T> {
    if (this.running === undefined) return this.start();
    if (this.next === undefined) {
      const settled = this.running.then(
        () => undefined,
        () => undefined,
      );
      this.next = settled.then(() => {
        this.next = undefined;
        return this.start();
      });
    }
    return this.next;
  }

  private start(): Promise<T> {
    this.reads++;
    const p = this.read();
    this.running = p;
    const clear = (): void => {
      if (this.running === p) this.running = undefined;
    };
    p.then(clear, clear);
    return p;
  }
}
