/**
 * The pieces hostile requests are made of: odd names, labels, selectors, continue tokens,
 * resourceVersions, content types and malformed or oversized bodies. Each generator takes
 * the seeded Rng, so one seed always makes the same requests.
 */
import type { Rng } from "./prng.js";

/** Names that exist (created before the run) are picked often, so writes reach real objects. */
export const KNOWN_NAMES = ["fuzz-a", "fuzz-b", "fuzz-c"];

const PROTO_KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty", "prototype", "valueOf"];

export function oddName(rng: Rng): string {
  return rng.oneOf([
    () => rng.pick(KNOWN_NAMES),
    () => rng.pick(KNOWN_NAMES),
    () => rng.pick(PROTO_KEYS),
    () => "",
    () => rng.string(rng.int(1, 20)),
    () => "a".repeat(rng.pick([63, 64, 253, 254, 1000, 5000])),
    () => rng.pick(["UPPER", "-lead", "trail-", "a..b", ".", "..", "a_b", "a b", "a/b", "日本", "a\u0000b", "\ud800"]),
    () => rng.string(rng.int(1, 30), "aZ09-._~!$&'()*+,;=:@%/?#[] \"<>\\^`{|}"),
  ]);
}

/** A path segment: the name percent-encoded, or raw hostile encodings. */
export function pathSegment(rng: Rng, name: string): string {
  if (rng.chance(0.15))
    return rng.pick(["%c0%ae", "%zz", "%", "%2e%2e", "%2F", "%00", "%ff%fe", "%E6%97%A5", "..", "."]);
  try {
    return encodeURIComponent(name);
  } catch {
    return "bad%";
  }
}

export function oddLabels(rng: Rng): unknown {
  return rng.oneOf<unknown>([
    () => ({ fuzz: "yes" }),
    () => ({ [rng.pick(PROTO_KEYS)]: "x" }),
    () => JSON.parse('{"__proto__":{"polluted":"labels"}}'),
    () => ({ ["k".repeat(rng.pick([63, 64, 300]))]: "v" }),
    () => ({ k: "v".repeat(rng.pick([63, 64, 5000])) }),
    () => ({ "bad key!": "v", "example.com/k": "v", "a/b/c": "v", "": "v" }),
    () => ({ k: rng.pick<unknown>([5, null, true, [], {}, "日本"]) }),
    () => ["a", "b"],
    () => "labels",
    () => Object.fromEntries(Array.from({ length: rng.pick([100, 2000]) }, (_, i) => [`k${i}`, `v${i}`])),
  ]);
}

export function labelSelector(rng: Rng): string {
  return rng.pick([
    "fuzz=yes",
    "fuzz in (yes,no)",
    "!fuzz",
    "fuzz!=no",
    "fuzz==yes",
    "fuzz=",
    "=yes",
    "fuzz in (",
    "fuzz notin ()",
    "a,b,c",
    `${"a".repeat(300)}=b`,
    `fuzz in (${"x,".repeat(2000)}x)`,
    "((((",
    "constructor",
    "__proto__=x",
    "toString in (a)",
    "a=b c",
    "a>1",
    "a<",
    "日本=x",
    ",,,",
    "a=b,",
    "!",
    "a in (b),!c,d notin (e),f=g",
  ]);
}

export function fieldSelector(rng: Rng): string {
  return rng.pick([
    "metadata.name=fuzz-a",
    "metadata.namespace!=p-fuzz",
    "metadata.name==x",
    "spec.x=1",
    "metadata.name",
    "==",
    "metadata.constructor=x",
    "metadata.__proto__=x",
    "metadata.name.toString=x",
    `metadata.name=${"x".repeat(5000)}`,
    "metadata.name=a,metadata.name=b,metadata.name!=c",
    "metadata.name in (a)",
    "=",
    ",",
  ]);
}

function base64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}

export function continueToken(rng: Rng): string {
  return rng.oneOf([
    () => "garbage",
    () => "",
    () => base64url(JSON.stringify({ v: "meta.k8s.io/v1", rv: rng.pick([-1, 0, 1, 2 ** 53, 1e300]), start: "a" })),
    () =>
      base64url(
        JSON.stringify({ v: "meta.k8s.io/v1", rv: 1, start: rng.pick(["../../", "/", "", "\u0000", "/registry/"]) }),
      ),
    () =>
      base64url(JSON.stringify({ v: "meta.k8s.io/v1", rv: 3, start: "/registry/management.platform/sharedsecrets/" })),
    () => base64url('{"__proto__":{"polluted":"continue"},"v":"meta.k8s.io/v1","rv":1,"start":"x"}'),
    () => base64url("[1,2,3]"),
    () => base64url("null"),
    () => "%%%",
    () => "A".repeat(10_000),
  ]);
}

export function resourceVersion(rng: Rng): string {
  return rng.pick(["0", "1", "-1", "abc", "1.5", "9007199254740993", "99999999999", "", " 1", "0x10", "1e3", "00"]);
}

export function objectContentType(rng: Rng): string | undefined {
  return rng.pick([
    "application/json",
    "application/json",
    "application/yaml",
    "application/json; charset=utf-8",
    "application/vnd.kubernetes.protobuf",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "garbage",
    "application/json; charset=latin1",
    ";;;",
    undefined,
  ]);
}

export function patchContentType(rng: Rng): string | undefined {
  return rng.pick([
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
    "application/apply-patch+json",
    "application/strategic-merge-patch+json",
    "application/json",
    "text/plain",
    undefined,
  ]);
}

export function accept(rng: Rng): string | undefined {
  return rng.pick([
    "application/json",
    "application/yaml",
    "application/json;as=Table;v=v1;g=meta.k8s.io",
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
    "application/vnd.kubernetes.protobuf",
    "text/html",
    "*/*",
    ";;;",
    "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
    undefined,
  ]);
}

/** Nested `{"a":…}` / `[…]` text `levels` deep. */
function deepText(rng: Rng, levels: number): string {
  return rng.chance(0.5)
    ? `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`
    : `${"[".repeat(levels)}${"]".repeat(levels)}`;
}

function aliasBomb(): string {
  let raw = 'a0: &a0 ["x","x","x","x","x","x","x","x","x"]\n';
  for (let i = 1; i < 9; i++)
    raw += `a${i}: &a${i} [${Array(9)
      .fill(`*a${i - 1}`)
      .join(",")}]\n`;
  return raw;
}

/** Malformed or hostile body text of any kind. */
export function hostileText(rng: Rng, valid: string): string {
  return rng.oneOf([
    () => valid.slice(0, rng.int(0, valid.length)),
    () => `${valid}}`,
    () => valid.replace(/"/g, "'"),
    () => "",
    () => "null",
    () => "[]",
    () => '"string"',
    () => "1e999999",
    () => deepText(rng, rng.pick([99, 101, 10_000, 200_000])),
    () => aliasBomb(),
    () => "kind: User\nmetadata:\n  name: *nope\n",
    () =>
      `kind: User\nmetadata:\n  name: fuzz-y\nspec:\n  displayName: ${rng.pick(["!!binary aGk=", "!foo x", "!!set {a}", "!!timestamp 2001-01-01", "!!js/function f"])}\n`,
    () => "a:\n\tb: 1\n",
    () => "%YAML 1.1\n---\na: b\n",
    () => "---\na: 1\n---\nb: 2\n",
    () => "\u0000\u0001\u0002",
    () => "\ufeff{}",
    () => `{"a":"${"x".repeat(rng.pick([1000, 100_000]))}"`,
    () => `${"{".repeat(5)}"__proto__":{"polluted":"text"}`,
    () => Buffer.from([0xff, 0xfe, 0x00, 0xc0, 0xae]).toString("latin1"),
  ]);
}
