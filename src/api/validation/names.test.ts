import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue, regexError } from "./names.js";

describe("isDns1123Subdomain", () => {
  it("accepts valid subdomains", () => {
    for (const v of ["a", "example.com", "a-b.c-d", "0", "a".repeat(253)])
      assert.deepEqual(isDns1123Subdomain(v), [], v);
  });
  it("refuses with the Kubernetes wording", () => {
    assert.deepEqual(isDns1123Subdomain("Example.com"), [
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
  });
  it("refuses edge shapes", () => {
    for (const v of ["", "-a", "a-", "a..b", ".a", "a.", "a_b", "a b", "a\n"]) {
      assert.equal(isDns1123Subdomain(v).length, 1, JSON.stringify(v));
    }
  });
  it("limits the length to 253", () => {
    assert.deepEqual(isDns1123Subdomain("a".repeat(254)), ["must be no more than 253 characters"]);
  });
});

describe("isDns1123Label", () => {
  it("accepts valid labels up to 63 characters", () => {
    for (const v of ["a", "my-name", "123-abc", "a".repeat(63)]) assert.deepEqual(isDns1123Label(v), [], v);
  });
  it("refuses dots, upper case and long labels", () => {
    assert.deepEqual(isDns1123Label("a.b"), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.equal(isDns1123Label("A").length, 1);
    assert.equal(isDns1123Label("").length, 1);
    assert.deepEqual(isDns1123Label("a".repeat(64)), ["must be no more than 63 characters"]);
  });
});

describe("isQualifiedName", () => {
  it("accepts names with and without prefix", () => {
    for (const v of ["app", "MyName", "my.name", "a_b", "example.com/MyName", "management.platform/team"]) {
      assert.deepEqual(isQualifiedName(v), [], v);
    }
  });
  it("refuses empty parts, bad prefixes and too many slashes", () => {
    assert.deepEqual(isQualifiedName("/a"), ["prefix part must be non-empty"]);
    assert.deepEqual(isQualifiedName("a/").slice(0, 1), ["name part must be non-empty"]);
    assert.match(isQualifiedName("Example.com/a")[0]!, /^prefix part a lowercase RFC 1123 subdomain/);
    assert.match(
      isQualifiedName("a/b/c")[0]!,
      /^a qualified name must consist of .* with an optional DNS subdomain prefix/,
    );
    assert.match(isQualifiedName("-a")[0]!, /^name part must consist of alphanumeric characters/);
    assert.deepEqual(isQualifiedName("a".repeat(64)), ["name part must be no more than 63 characters"]);
  });
});

describe("isValidLabelValue", () => {
  it("accepts empty and valid values", () => {
    for (const v of ["", "v1", "my_value", "a.b-c", "a".repeat(63)]) assert.deepEqual(isValidLabelValue(v), [], v);
  });
  it("refuses bad shapes and long values", () => {
    assert.equal(isValidLabelValue("-a").length, 1);
    assert.equal(isValidLabelValue("a b").length, 1);
    assert.deepEqual(isValidLabelValue("a".repeat(64)), ["must be no more than 63 characters"]);
  });
});

describe("regexError", () => {
  it("words a message without examples", () => {
    assert.equal(regexError("m", "x"), "m (regex used for validation is 'x')");
  });
});
