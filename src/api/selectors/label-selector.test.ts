import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiError } from "../errors.js";
import { parseLabelSelector } from "./label-selector.js";

function refusal(selector: string): string {
  try {
    parseLabelSelector(selector);
  } catch (err) {
    assert.ok(isApiError(err, "BadRequest"), `expected a BadRequest for ${JSON.stringify(selector)}`);
    assert.equal(err.code, 400);
    return err.message;
  }
  assert.fail(`${JSON.stringify(selector)} was accepted`);
}

describe("parseLabelSelector", () => {
  it("matches everything when empty", () => {
    for (const s of ["", undefined, null, "   "]) {
      const sel = parseLabelSelector(s);
      assert.equal(sel.empty, true);
      assert.equal(sel(undefined), true);
      assert.equal(sel({ a: "b" }), true);
      assert.equal(String(sel), "");
    }
  });

  it("handles =, == and !=", () => {
    const eq = parseLabelSelector("app=web");
    assert.equal(eq({ app: "web" }), true);
    assert.equal(eq({ app: "api" }), false);
    assert.equal(eq({}), false);
    assert.equal(parseLabelSelector("app==web")({ app: "web" }), true);
    const ne = parseLabelSelector("app!=web");
    assert.equal(ne({ app: "web" }), false);
    assert.equal(ne({ app: "api" }), true);
    assert.equal(ne(undefined), true, "an absent label satisfies !=");
  });

  it("treats a missing value after = or == as the empty value", () => {
    assert.equal(parseLabelSelector("app==")({ app: "" }), true);
    const sel = parseLabelSelector("app=");
    assert.equal(sel({ app: "" }), true);
    assert.equal(sel({ app: "x" }), false);
  });

  it("handles in and notin, with spaces", () => {
    const sel = parseLabelSelector("  env in ( prod ,staging ) ");
    assert.equal(sel({ env: "prod" }), true);
    assert.equal(sel({ env: "staging" }), true);
    assert.equal(sel({ env: "dev" }), false);
    assert.equal(sel({}), false);
    const not = parseLabelSelector("env notin (prod)");
    assert.equal(not({ env: "prod" }), false);
    assert.equal(not({ env: "dev" }), true);
    assert.equal(not({}), true, "an absent label satisfies notin");
    assert.equal(String(sel), "env in (prod,staging)");
  });

  it("handles key and !key", () => {
    const has = parseLabelSelector("team");
    assert.equal(has({ team: "" }), true);
    assert.equal(has({}), false);
    const hasNot = parseLabelSelector("!team");
    assert.equal(hasNot({ team: "x" }), false);
    assert.equal(hasNot(undefined), true);
    assert.equal(String(parseLabelSelector(" ! team ")), "!team");
  });

  it("ANDs comma-separated requirements and prints them sorted by key", () => {
    const sel = parseLabelSelector("tier in (web,api), !legacy,app=x,example.com/owner");
    assert.equal(sel({ app: "x", tier: "web", "example.com/owner": "me" }), true);
    assert.equal(sel({ app: "x", tier: "web", "example.com/owner": "me", legacy: "1" }), false);
    assert.equal(sel({ app: "x", tier: "db", "example.com/owner": "me" }), false);
    assert.equal(String(sel), "app=x,example.com/owner,!legacy,tier in (api,web)");
    assert.equal(sel.requirements.length, 4);
    // the printed form parses back to the same selector
    assert.equal(String(parseLabelSelector(String(sel))), String(sel));
  });

  it("treats in and notin as values inside sets and after =", () => {
    assert.equal(parseLabelSelector("a in (in,notin)")({ a: "notin" }), true);
    assert.equal(parseLabelSelector("a=in")({ a: "in" }), true);
  });

  it("supports Kubernetes' integer > and <", () => {
    assert.equal(parseLabelSelector("rank>2")({ rank: "3" }), true);
    assert.equal(parseLabelSelector("rank>2")({ rank: "2" }), false);
    assert.equal(parseLabelSelector("rank<2")({ rank: "x" }), false);
    assert.equal(parseLabelSelector("rank<2")({}), false);
    assert.match(refusal("rank>x"), /the value must be an integer/);
  });

  it("refuses malformed selectors with Kubernetes wording", () => {
    assert.equal(refusal("app===x"), "unable to parse requirement: found '=', expected: identifier");
    assert.equal(refusal("a=b=c"), "found '=', expected: ',' or 'end of string'");
    assert.equal(refusal("a,"), "found '', expected: identifier after ','");
    assert.equal(refusal("a,,b"), "found ',', expected: identifier after ','");
    assert.equal(refusal(",a"), "found ',', expected: !, identifier, or 'end of string'");
    assert.equal(
      refusal("a IN (b)"),
      "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt",
    );
    assert.equal(refusal("a in b"), "unable to parse requirement: found 'b', expected: '('");
    assert.equal(refusal("a in (b"), "unable to parse requirement: found '', expected: ',' or ')'");
    assert.equal(refusal("a in ()"), "unable to parse requirement: found ')', expected: ',', or identifier");
    assert.equal(refusal("!"), "unable to parse requirement: found '', expected: identifier");
    assert.equal(refusal("!a=b"), "found '=', expected: ',' or 'end of string'");
    assert.equal(refusal("a==(b)"), "unable to parse requirement: found '(', expected: identifier");
  });

  it("validates keys and values", () => {
    assert.match(
      refusal("-bad=x"),
      /^unable to parse requirement: key: Invalid value: "-bad": name part must consist of/,
    );
    assert.match(refusal("a/b/c"), /^unable to parse requirement: key: Invalid value: "a\/b\/c": a qualified name/);
    assert.match(
      refusal(`a=${"v".repeat(64)}`),
      /values\[0\]: Invalid value: "v+": must be no more than 63 characters/,
    );
    assert.match(refusal("a in (ok,-bad)"), /values\[1\]: Invalid value: "-bad"/);
  });

  it("reads (,a) and (a,) as including the empty value", () => {
    const sel = parseLabelSelector("a in (b,)");
    assert.equal(sel({ a: "" }), true);
    assert.equal(sel({ a: "b" }), true);
    assert.equal(String(sel), "a in (,b)");
  });
});
