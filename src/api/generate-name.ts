/**
 * metadata.generateName, as k8s.io/apiserver's names.SimpleNameGenerator does
 * it: the prefix cut to 58 characters plus 5 random characters, so the result
 * fits a 63-character DNS label.
 */
import { randomInt } from "node:crypto";

/** The characters Kubernetes draws from (no vowels, no confusable 0/1/3). */
export const GENERATE_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const GENERATE_NAME_RANDOM_LENGTH = 5;
const MAX_GENERATE_NAME_PREFIX_LENGTH = 63 - GENERATE_NAME_RANDOM_LENGTH;

/** `prefix` (cut to 58 characters) followed by 5 random characters. `randomIndex(n)` returns 0 ≤ i < n. */
export function generateName(prefix: string, randomIndex: (n: number) => number = randomInt): string {
  const base =
    prefix.length > MAX_GENERATE_NAME_PREFIX_LENGTH ? prefix.slice(0, MAX_GENERATE_NAME_PREFIX_LENGTH) : prefix;
  let suffix = "";
  for (let i = 0; i < GENERATE_NAME_RANDOM_LENGTH; i++) {
    suffix += GENERATE_NAME_ALPHABET[randomIndex(GENERATE_NAME_ALPHABET.length)];
  }
  return base + suffix;
}
