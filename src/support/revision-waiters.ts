/**
 * Callers waiting until a copy of the store kept by a watch (the watch cache's ResourceCache, an
 * informer) has applied a revision: the copy calls release() as its revision moves, releaseAll()
 * when it stops or breaks (each caller then looks at the copy's state itself).
 */
export class RevisionWaiters {
  private readonly waiting: { revision: number; resolve: () => void }[] = [];

  /**
   * True once release() reaches `revision` (or releaseAll()); false after `timeoutMs`, when one is
   * given, and the waiter is removed then, so a copy stuck behind does not collect them.
   */
  wait(revision: number, timeoutMs?: number): Promise<boolean> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.waiting.push(waiter);
      if (timeoutMs === undefined) return;
      timer = setTimeout(() => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(false);
      }, timeoutMs);
    });
  }

  /** Lets every caller waiting for `revision` or an earlier one go. */
  release(revision: number): void {
    if (this.waiting.length === 0) return;
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const waiter = this.waiting[i]!;
      if (waiter.revision <= revision) {
        this.waiting.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  releaseAll(): void {
    for (const waiter of this.waiting.splice(0)) waiter.resolve();
  }
}
