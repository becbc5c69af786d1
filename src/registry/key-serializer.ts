/**
 * Runs read-modify-write operations on one key one after another within this process.
 *
 * Concurrent patches of one object all read the same revision; all but one then fail their
 * write with a conflict, read again and retry, so a hot object costs work that grows with the
 * square of its writers and, past the retry limit, 409s. Queued behind
 * each other they read what the previous one wrote and succeed the first time. Writers in other
 * replicas (etcd) still meet conflicts and retry as before. An operation must not wait for
 * another operation on the same key through this serializer (it would wait for itself).
 */
export class KeySerializer {
  /** The last queued operation per key, settled either way. */
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    const result = previous ? previous.then(operation) : operation();
    const tail = result.then(
      () => {},
      () => {},
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
