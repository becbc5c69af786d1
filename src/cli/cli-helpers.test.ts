import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDuration } from "./accesskeys.js";
import { normalizeServer } from "./api-client.js";
import { parseRequestTimeout } from "./http-transport.js";
import { formatTable, parseOutput } from "./output.js";

describe("cli helpers", () => {
  it("parseDuration reads seconds and unit forms and refuses the rest", () => {
    assert.equal(parseDuration("90"), 90);
    assert.equal(parseDuration("30d"), 30 * 86400);
    assert.equal(parseDuration("1h30m"), 5400);
    assert.equal(parseDuration("0"), 0);
    for (const bad of ["", "soon", "1h30", "d", "-1h"]) assert.throws(() => parseDuration(bad), /not a duration/, bad);
  });

  it("normalizeServer strips the API prefix and trailing slashes, defaults to https", () => {
    assert.equal(normalizeServer("https://h:8443/"), "https://h:8443");
    assert.equal(normalizeServer("https://h:8443/kubernetes/management/"), "https://h:8443");
    assert.equal(normalizeServer("h.example.com:8443"), "https://h.example.com:8443");
    assert.throws(() => normalizeServer("ftp://h"), /not an https URL/);
    assert.throws(() => normalizeServer("http://h:8443"), /served over HTTPS only; use https:\/\/h:8443$/);
  });

  it("parseRequestTimeout reads kubectl's forms", () => {
    assert.equal(parseRequestTimeout("0"), 0);
    assert.equal(parseRequestTimeout("5"), 5000);
    assert.equal(parseRequestTimeout("30s"), 30_000);
    assert.equal(parseRequestTimeout("1m"), 60_000);
    assert.equal(parseRequestTimeout("250ms"), 250);
    for (const bad of ["", "soon", "-1s", "1d"])
      assert.throws(() => parseRequestTimeout(bad), /--request-timeout/, bad);
  });

  it("formatTable pads columns and upper-cases headers; parseOutput refuses unknown formats", () => {
    assert.equal(
      formatTable(
        ["Name", "Age"],
        [
          ["a", "1s"],
          ["long-name", null],
        ],
      ),
      "NAME        AGE\na           1s\nlong-name   <none>\n",
    );
    assert.equal(parseOutput(undefined), "table");
    assert.equal(parseOutput("yaml"), "yaml");
    assert.throws(() => parseOutput("xml"), /--output must be/);
  });
});
