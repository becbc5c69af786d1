import assert from "node:assert/strict";
import { test } from "node:test";
import { queryAsksWatch, requestVerb } from "./request-verb.js";

test("queryAsksWatch reads watch as kube-apiserver reads a boolean parameter", () => {
  for (const q of ["watch=true", "watch=True", "watch=1", "watch=", "watch=yes", "a=b&watch=TRUE"])
    assert.equal(queryAsksWatch(q), true, q);
  for (const q of ["", "watch=false", "watch=False", "watch=0", "watchx=true", "allowWatchBookmarks=true"])
    assert.equal(queryAsksWatch(q), false, q);
});

test("a repeated watch counts by its first value, as the connected cluster reads it", () => {
  assert.equal(queryAsksWatch("watch=true&watch=false"), true);
  assert.equal(queryAsksWatch("watch=false&watch=true"), false);
});

test("requestVerb names a Python client's watch=True a watch", () => {
  assert.equal(requestVerb("GET", false, queryAsksWatch("watch=True")), "watch");
  assert.equal(requestVerb("GET", true, false), "get");
  assert.equal(requestVerb("DELETE", false, false), "deletecollection");
});
