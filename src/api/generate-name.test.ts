import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GENERATE_NAME_ALPHABET, generateName } from "./generate-name.js";
import { isDns1123Label } from "./validation/names.js";

describe("generateName", () => {
  it("appends five characters from the Kubernetes alphabet", () => {
    const name = generateName("user-");
    assert.match(name, /^user-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
  it("cuts the prefix to 58 characters so the name fits 63", () => {
    const name = generateName("p".repeat(100));
    assert.equal(name.length, 63);
    assert.ok(name.startsWith("p".repeat(58)));
    assert.deepEqual(isDns1123Label(name), []);
  });
  it("uses the given random source", () => {
    assert.equal(
      generateName("x-", () => 0),
      "x-bbbbb",
    );
    assert.equal(
      generateName("", () => GENERATE_NAME_ALPHABET.length - 1),
      "99999",
    );
  });
  it("varies between calls", () => {
    const names = new Set(Array.from({ length: 50 }, () => generateName("a-")));
    assert.ok(names.size > 45);
  });
});
