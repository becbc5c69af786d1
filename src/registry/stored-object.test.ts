import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ResourceType } from "./resource-type.js";
import { decodeStoredObject, UndecodableValueError } from "./stored-object.js";

const teams = {
  group: "management.platform",
  version: "v1",
  kind: "Team",
  plural: "teams",
  namespaced: false,
} as ResourceType;
const vcis = {
  group: "management.platform",
  version: "v1",
  kind: "VirtualClusterInstance",
  plural: "virtualclusterinstances",
  namespaced: true,
} as ResourceType;
const TEAM = '"apiVersion":"management.platform/v1","kind":"Team"';
const VCI = '"apiVersion":"management.platform/v1","kind":"VirtualClusterInstance"';

/** The reason decoding `value` under `key` fails (fixed words), or "decodes". */
function reason(rt: ResourceType, key: string, value: string | Buffer): string {
  try {
    const obj = decodeStoredObject(rt, { key, value: Buffer.from(value), modRevision: 9 });
    assert.equal(obj.metadata.resourceVersion, "9");
    return "decodes";
  } catch (err) {
    assert.ok(err instanceof UndecodableValueError, String(err));
    assert.ok(!err.message.includes("secret-bytes"), "the reason never quotes the value");
    return err.reason;
  }
}

describe("a decodable stored value (stored-object.ts)", () => {
  const team = "/registry/management.platform/teams/a";
  const vci = "/registry/management.platform/virtualclusterinstances/ns/v";

  test("an object as the API stores it decodes; its resourceVersion is the revision", () => {
    assert.equal(reason(teams, team, `{${TEAM},"metadata":{"name":"a"},"spec":{}}`), "decodes");
    assert.equal(reason(vcis, vci, `{${VCI},"metadata":{"name":"v","namespace":"ns"}}`), "decodes");
  });

  test("each kind of damage has its reason, in fixed words", () => {
    const cases: Array<[ResourceType, string, string | Buffer, string]> = [
      [
        teams,
        team,
        Buffer.concat([Buffer.from(`{${TEAM},"metadata":{"name":"a"},"x":"`), Buffer.from([0xc3]), Buffer.from('"}')]),
        "the stored value is not valid UTF-8",
      ],
      [teams, team, `{${TEAM},"metadata":{"name":"a"},"x":"secret-bytes",,}`, "the stored value is not valid JSON"],
      [teams, team, '["secret-bytes"]', "the stored value is not an object with metadata"],
      [teams, team, "null", "the stored value is not an object with metadata"],
      [teams, team, `{${TEAM},"metadata":["secret-bytes"]}`, "the stored value is not an object with metadata"],
      [teams, team, `{${TEAM},"metadata":{"labels":{"x":"secret-bytes"}}}`, "the stored object has no metadata.name"],
      [teams, team, `{${TEAM},"metadata":{"name":"b"}}`, "the stored object is not the one its storage key names"],
      [
        teams,
        team,
        `{"apiVersion":"v1","kind":"Team","metadata":{"name":"a"}}`,
        "the stored object is not the one its storage key names",
      ],
      [
        teams,
        team,
        `{"apiVersion":"management.platform/v1","kind":"Secret","metadata":{"name":"a"}}`,
        "the stored object is not the one its storage key names",
      ],
      [teams, team, `{"metadata":{"name":"a"}}`, "the stored object is not the one its storage key names"],
      [
        vcis,
        vci,
        `{${VCI},"metadata":{"name":"v","namespace":"other"}}`,
        "the stored object is not the one its storage key names",
      ],
      [vcis, vci, `{${VCI},"metadata":{"name":"v"}}`, "the stored object is not the one its storage key names"],
      [
        vcis,
        vci,
        `{${VCI},"metadata":{"name":"v","namespace":7}}`,
        "the stored object is not the one its storage key names",
      ],
    ];
    for (const [rt, key, value, expected] of cases) assert.equal(reason(rt, key, value), expected, String(value));
  });
});
