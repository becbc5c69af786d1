import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import { platformResource, writesTo } from "./resource-match.js";

const KEYS = platformResource("ownedaccesskeys");

/**
 * `--max-key-ttl`: no access key a caller creates or updates lives longer than the server's
 * maximum. A longer (or absent, i.e. endless) ttl is capped, with a warning. The server's own
 * keys (the bootstrap admin key) are not capped.
 */
export class KeyTtlCapAdmission implements AdmissionPlugin {
  readonly name = "KeyTtlCap";

  /** `maxKeyTtlSeconds` undefined: no limit. */
  constructor(private readonly maxKeyTtlSeconds: number | undefined) {}

  admit(attrs: AdmissionAttributes): undefined {
    const max = this.maxKeyTtlSeconds;
    if (!max || isServerWrite(attrs) || !writesTo(attrs, KEYS)) return;
    attrs.object.spec ??= {};
    const spec = attrs.object.spec;
    const ttl = Number(spec.ttl ?? 0);
    if (!ttl || ttl > max) {
      spec.ttl = max;
      attrs.warnings.push(`spec.ttl capped to the server's maximum of ${max} seconds`);
    }
  }
}
