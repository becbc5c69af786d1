import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../api/object.js";
import { spaceLabels } from "./desired-space.js";
import { holdsNamespace, namespaceClaim } from "./namespace-claim.js";

const PROJECT = "management.platform/project";

const space = (uid: string, project: string, status: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind: "SpaceInstance",
  metadata: { name: "dev", namespace: `p-${project}`, uid },
  spec: {},
  status,
});
/** The projects that exist, by name: their UIDs. */
const PROJECT_UIDS: Record<string, string> = { web: "uid-web", shop: "uid-shop", other: "uid-other" };
const claimOf = (s: KubeObject, others: KubeObject[] = [], projects = PROJECT_UIDS) =>
  namespaceClaim(
    s,
    spaceLabels(s),
    () => others,
    (name) => projects[name],
  );
const namespace = (uid: string, labels: Record<string, string>) => ({ metadata: { uid, labels } });

describe("which namespace a space or instance holds", () => {
  const here = space("s-1", "shop");
  const own = spaceLabels(here);
  const leftWeb = { ...own, [PROJECT]: "web" };

  it("its labels, or the UID its status recorded though the labels name the project a move left", () => {
    assert.ok(holdsNamespace(namespace("ns-1", { ...own, other: "y" }), claimOf(here)));
    assert.ok(!holdsNamespace(namespace("ns-1", { ...own, "management.platform/space": "other" }), claimOf(here)));
    const recorded = space("s-1", "shop", { namespaceUID: "ns-1" });
    assert.ok(holdsNamespace(namespace("ns-1", leftWeb), claimOf(recorded)));
    assert.ok(!holdsNamespace(namespace("ns-2", leftWeb), claimOf(recorded)), "made again by someone else");
    assert.ok(!holdsNamespace(namespace("ns-1", leftWeb), claimOf(here)), "no UID, no move recorded");
    assert.ok(!holdsNamespace({ metadata: { uid: "ns-3" } }, claimOf(recorded)));
  });

  it("moved before a UID was recorded: the labels of the project of the UID it left, and of no other", () => {
    const moved = space("s-1", "shop", { movedFromProjectUID: "uid-web" });
    assert.ok(holdsNamespace(namespace("ns-1", leftWeb), claimOf(moved)));
    assert.ok(holdsNamespace(namespace("ns-1", own), claimOf(moved)), "once labelled for its new project");
    assert.ok(!holdsNamespace(namespace("ns-1", { ...own, [PROJECT]: "other" }), claimOf(moved)));
    assert.ok(!holdsNamespace(namespace("ns-1", { [PROJECT]: "web" }), claimOf(moved)), "made by hand");
    const recordedSince = space("s-1", "shop", { movedFromProjectUID: "uid-web", namespaceUID: "ns-9" });
    assert.ok(!holdsNamespace(namespace("ns-1", leftWeb), claimOf(recordedSince)), "the UID recorded decides");
    // Project web deleted since, and made again: another project of that name is not the one left.
    assert.ok(!holdsNamespace(namespace("ns-1", leftWeb), claimOf(moved, [], { web: "uid-web-2" })));
    assert.ok(!holdsNamespace(namespace("ns-1", leftWeb), claimOf(moved, [], {})), "project web gone");
  });

  it("moved by an earlier version, which recorded the project's name: that name's labels", () => {
    const moved = space("s-1", "shop", { movedFromProject: "web" });
    assert.ok(holdsNamespace(namespace("ns-1", leftWeb), claimOf(moved)));
    assert.ok(!holdsNamespace(namespace("ns-1", { ...own, [PROJECT]: "other" }), claimOf(moved)));
  });

  it("never one whose UID another of its kind recorded, though its labels name this one", () => {
    // Made in project web after the space of that name moved to shop: its default namespace is the moved one's.
    const newcomer = space("s-2", "web");
    const movedAway = space("s-1", "shop", { namespaceUID: "ns-1" });
    const labelledWeb = namespace("ns-1", spaceLabels(newcomer));
    assert.ok(!holdsNamespace(labelledWeb, claimOf(newcomer, [newcomer, movedAway])));
    assert.ok(holdsNamespace(labelledWeb, claimOf(movedAway, [newcomer, movedAway])));
    // The copy the move left, still in a cache, is another object than the newcomer of its name.
    const leftCopy = space("s-0", "web", { namespaceUID: "ns-1" });
    assert.ok(!holdsNamespace(labelledWeb, claimOf(newcomer, [leftCopy, newcomer])));
    // A newer copy of the same object (the cache's, its UID just recorded) is no other.
    const recordedCopy = space("s-2", "web", { namespaceUID: "ns-1" });
    assert.ok(holdsNamespace(labelledWeb, claimOf(newcomer, [recordedCopy])));
    assert.ok(holdsNamespace(namespace("ns-5", spaceLabels(newcomer)), claimOf(newcomer, [newcomer, movedAway])));
  });
});
