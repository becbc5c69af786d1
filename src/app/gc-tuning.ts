/**
 * The server's garbage-collector setting: V8's old-generation growing factor fixed at 2
 * (`--heap-growing-percent=100`), as Go's GOGC=100 gives etcd and kube-apiserver.
 *
 * Why: V8 derives the factor from how fast the program allocates against how fast it collects.
 * A server taking a steady trickle of writes allocates slowly, so V8 keeps the heap small and
 * runs a full collection every few seconds; each one's final pause holds every request and watch
 * event behind it, and those pauses were most of the tail of a write's delivery to another
 * replica (the bench's two-replica part; docs/performance.md). With the factor at 2 the same load
 * runs far fewer full collections, with shorter pauses; bulk writes, where V8 would otherwise
 * pick a larger factor, collect more often but are no slower, and their peak heap is smaller.
 *
 * An operator's own choice wins: `node --heap-growing-percent=N bin/platform.js start` keeps N.
 */

export const HEAP_GROWING_PERCENT = 100;

const OPERATOR_CHOICE = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * Applies the setting unless the process was started with its own `--heap-growing-percent`
 * (`execArgv`, the node flags before the script). `setFlags` is `v8.setFlagsFromString`: V8
 * reads this flag each time it computes the next collection's limit, so setting it once the
 * process runs takes effect from the next full collection. Returns the flag applied, if any.
 */
export function tuneGarbageCollector(
  execArgv: readonly string[],
  setFlags: (flags: string) => void,
): string | undefined {
  if (execArgv.some((arg) => OPERATOR_CHOICE.test(arg))) return undefined;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  setFlags(flag);
  return flag;
}
