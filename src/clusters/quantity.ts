/**
 * Kubernetes quantities (a ResourceQuota's `pods`, a container's `cpu`, a volume's size): a number
 * with an optional decimal exponent (`1e3`) or suffix, decimal (`500m`, `2k`) or binary (`1Gi`).
 */

const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The number a Kubernetes quantity string stands for (`500m`, `1Gi`, `1e3`); undefined when it is none. */
export function quantityValue(text: string): number | undefined {
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/.exec(text);
  if (!m) return undefined;
  const number = Number(m[1]);
  if (m[2] !== undefined) return number * 10 ** Number(m[2]);
  const factor = SUFFIXES[m[3] ?? ""] ?? 1;
  // Divided, not multiplied, for the small suffixes: 100m is exactly 0.1.
  return factor < 1 ? number / Math.round(1 / factor) : number * factor;
}
