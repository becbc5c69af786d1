/**
 * Many callers, few round trips: a read that every caller needs to have *started after it
 * asked* (a linearizable "what is the store's revision now?"), shared between the callers that
 * ask at about the same time.
 *
 * A caller that arrives while a read is in flight cannot use that read's answer: it was sent
 * before the caller asked, so a write acknowledged in between might be missing from it. It joins
 * the batch that has not been sent yet instead. A batch is sent at the end of the event loop's
 * current turn (so every request parsed in that turn shares it), unless `maxInFlight` reads are
 * already out: then it goes as soon as one returns. Every answer is at least as new as anything
 * acknowledged before its caller asked (kube-apiserver's consistent reads from cache rest on the
 * same rule).
 *
 * Why more than one in flight: with one, a caller that arrives just after a read was sent waits
 * for that read and then for its own, about 1.5 round trips on average, and under a steady load
 * the server sits idle while every connection waits for the same answer.
 */
export class CoalescedRead<T> {
  private inFlight = 0;
  /** Callers waiting for a read that has not been sent yet. */
  private batch: Batch<T> | undefined;
  /** Round trips made (for tests and the bench). */
  reads = 0;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly maxInFlight = 2,
  ) {}

  /** The answer of a read that started no earlier than this call. */
  get(): Promise<T> {
    if (this.batch) return this.batch.promise;
    const batch = new Batch<T>();
    this.batch = batch;
    if (this.inFlight < this.maxInFlight) setImmediate(() => this.send());
    return batch.promise;
  }

  /** Sends the waiting batch's read, if there is one and room for it. */
  private send(): void {
    const batch = this.batch;
    if (batch === undefined || batch.sent || this.inFlight >= this.maxInFlight) return;
    batch.sent = true;
    this.batch = undefined;
    this.inFlight++;
    this.reads++;
    const done = (): void => {
      this.inFlight--;
      this.send();
    };
    let answer: Promise<T>;
    try {
      answer = this.read();
    } catch (err) {
      answer = Promise.reject(err);
    }
    answer.then(
      (value) => {
        done();
        batch.resolve(value);
      },
      (err: unknown) => {
        done();
        batch.reject(err);
      },
    );
  }
}

/** The callers of one read. */
class Batch<T> {
  sent = false;
  readonly promise: Promise<T>;
  resolve!: (value: T) => void;
  reject!: (err: unknown) => void;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}
