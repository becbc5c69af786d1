// The order run-tests.js starts the test files in: the longest first. A few files take most of
// the suite's time (a real Kubernetes control plane, Chromium, every kubectl minor, the bench);
// started last, one of them runs alone at the end while the other slots sit idle.
//
// A file's length is what it took in the last run on this machine (DURATIONS_FILE, written by
// run-tests.js after each run, kept out of git). Files never run here (a fresh checkout, as on
// CI; a new test) come first, ranked by what they start, read from their compiled text, then by
// size: a new file may be a long one, and a short one started early costs nothing.
import { readFileSync, writeFileSync } from "node:fs";

/** Milliseconds each file took when it last ran here, by path. */
export const DURATIONS_FILE = ".tmp/test-durations.json";

/** What makes a file long: each one its text mentions ranks it higher. */
const SLOW_SIGNS = [
  /\bKubeControlPlane\b|\bstartPlatformOnControlPlane\b/, // a real kube-apiserver and its controllers
  /\blaunchChromium\b/, // a browser
  /\bkubectlBinaries\b/, // every kubectl minor
  /new URL\("\.\/run\.js"/, // the bench harness, end to end
  /\bEtcdCluster\b/, // etcd members
];

export function readDurations() {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, "utf8"));
  } catch {
    return {};
  }
}

/** Adds `measured` (ms by path) to the durations kept, for the next run's order. */
export function saveDurations(measured) {
  if (Object.keys(measured).length === 0) return;
  const rounded = Object.fromEntries(Object.entries(measured).map(([file, ms]) => [file, Math.round(ms)]));
  try {
    writeFileSync(DURATIONS_FILE, `${JSON.stringify({ ...readDurations(), ...rounded }, null, 1)}\n`);
  } catch {
    // No .tmp (a read-only checkout): the next run ranks by the files' text instead.
  }
}

/** `files`, longest first: those never run here (by slow signs, then size), then by known duration. */
export function longestFirst(files, durations = readDurations()) {
  const guess = new Map(
    files.map((file) => {
      const text = readFileSync(file, "utf8");
      return [file, { signs: SLOW_SIGNS.filter((sign) => sign.test(text)).length, size: text.length }];
    }),
  );
  const known = (f) => durations[f] !== undefined;
  return [...files].sort((a, b) => {
    if (known(a) !== known(b)) return known(a) ? 1 : -1;
    if (known(a)) return durations[b] - durations[a];
    const ga = guess.get(a);
    const gb = guess.get(b);
    return gb.signs - ga.signs || gb.size - ga.size;
  });
}
