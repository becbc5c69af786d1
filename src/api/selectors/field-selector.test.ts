import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiError } from "../errors.js";
import { escapeFieldValue, objectFieldGetter, parseFieldSelector, unescapeFieldValue } from "./field-selector.js";

function refusal(selector: string, allowed?: readonly string[]): string {
  try {
    parseFieldSelector(selector, allowed);
  } catch (err) {
    assert.ok(isApiError(err, "BadRequest"), `expected a BadRequest for ${JSON.stringify(selector)}`);
    return err.message;
  }
  assert.fail(`${JSON.stringify(selector)} was accepted`);
}

const obj = { metadata: { name: "alice", namespace: "" }, spec: { team: "core", admin: true, quota: 3 } };
const get = objectFieldGetter(obj);

describe("parseFieldSelector", () => {
  it("matches everything when empty", () => {
    const sel = parseFieldSelector("");
    assert.equal(sel.empty, true);
    assert.equal(sel(get), true);
    assert.equal(sel.exactName, undefined);
    assert.equal(parseFieldSelector(undefined)(get), true);
    assert.equal(parseFieldSelector(",")(get), true);
  });

  it("handles =, == and !=", () => {
    assert.equal(parseFieldSelector("metadata.name=alice")(get), true);
    assert.equal(parseFieldSelector("metadata.name==alice")(get), true);
    assert.equal(parseFieldSelector("metadata.name=bob")(get), false);
    assert.equal(parseFieldSelector("metadata.name!=bob")(get), true);
    assert.equal(parseFieldSelector("metadata.name!=alice")(get), false);
    assert.equal(parseFieldSelector("metadata.namespace=")(get), true);
  });

  it("ANDs terms and exposes the pinned name", () => {
    const sel = parseFieldSelector("metadata.namespace!=kube-system,metadata.name=alice");
    assert.equal(sel(get), true);
    assert.equal(sel.exactName, "alice");
    assert.equal(sel.exactValue("metadata.namespace"), undefined);
    assert.equal(String(sel), "metadata.name=alice,metadata.namespace!=kube-system");
    assert.equal(parseFieldSelector("metadata.name!=alice").exactName, undefined);
    assert.equal(parseFieldSelector("metadata.name==bob").exactName, "bob");
  });

  it("refuses fields the kind does not permit", () => {
    assert.equal(refusal("spec.team=core"), "field label not supported: spec.team");
    assert.equal(refusal(" metadata.name=x"), "field label not supported:  metadata.name");
    const sel = parseFieldSelector("spec.team=core,spec.admin=true,spec.quota!=4", [
      "metadata.name",
      "spec.team",
      "spec.admin",
      "spec.quota",
    ]);
    assert.equal(sel(get), true);
    assert.equal(sel.exactValue("spec.team"), "core");
  });

  it("reads absent fields as empty", () => {
    const sel = parseFieldSelector("spec.missing!=x,spec.other=", ["spec.missing", "spec.other"]);
    assert.equal(sel(get), true);
    assert.equal(
      sel(() => undefined),
      true,
    );
  });

  it("refuses malformed terms", () => {
    assert.equal(refusal("metadata.name"), "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    assert.equal(refusal("metadata.name=a=b"), "invalid field selector: unescaped character in value: =");
    assert.equal(refusal("metadata.name=a\\x"), "invalid field selector: invalid escape sequence: \\x");
    assert.equal(refusal("metadata.name=a\\"), "invalid field selector: invalid escape sequence: \\");
  });

  it("unescapes values and splits only on unescaped commas", () => {
    const sel = parseFieldSelector("metadata.name=a\\,b\\=c\\\\d");
    assert.equal(sel.exactName, "a,b=c\\d");
    assert.equal(String(sel), "metadata.name=a\\,b\\=c\\\\d");
    assert.equal(unescapeFieldValue(escapeFieldValue("x,=\\y")), "x,=\\y");
  });
});

describe("objectFieldGetter", () => {
  it("reads dotted paths and stringifies scalars", () => {
    assert.equal(get("metadata.name"), "alice");
    assert.equal(get("spec.admin"), "true");
    assert.equal(get("spec.quota"), "3");
    assert.equal(get("spec"), undefined);
    assert.equal(get("spec.nope.deeper"), undefined);
  });
});
