import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDuration } from "./accesskeys.js";
import { normalizeServer } from "./api-client.js";
import { parseRequestTimeout } from "./http-transport.js";
import { networkError } from "./network-errors.js";
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

  it("a refused connection names the proxy when HTTPS_PROXY is set", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const saved = process.env.HTTPS_PROXY;
    try {
      delete process.env.HTTPS_PROXY;
      assert.equal(
        networkError("https://h:1", refused, 0).message,
        "cannot reach https://h:1: connection refused (is the server running?)",
      );
      process.env.HTTPS_PROXY = "http://proxy:3128";
      assert.match(
        networkError("https://h:1", refused, 0).message,
        /or the proxy http:\/\/proxy:3128 \(HTTPS_PROXY; NO_PROXY/,
      );
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved;
    }
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
