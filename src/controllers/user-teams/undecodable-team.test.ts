import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeObject } from "../../api/object.js";
import { IdentityIndex } from "../../auth/identity-index.js";
import { ownedAccessKeyResource } from "../../kinds/owned-access-key/owned-access-key.js";
import { teamResource } from "../../kinds/team/team.js";
import { userResource } from "../../kinds/user/user.js";
import { defaultWriteOptions } from "../../registry/options.js";
import { systemContext } from "../../registry/request-context.js";
import { SharedInformers } from "../../registry/shared-informers.js";
import type { UndecodableObject } from "../../registry/undecodable.js";
import { flakyRegistry } from "../../testing/flaky-registry.js";
import { UserTeamsController } from "./controller.js";

const object = (kind: string, name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind,
  metadata: { name },
  spec,
});

test("user-teams: a team whose stored value does not decode is skipped and dropped, and the controller goes on", async () => {
  const { registry, close } = flakyRegistry([teamResource, userResource, ownedAccessKeyResource()]);
  const reports: UndecodableObject[] = [];
  const informers = new SharedInformers(registry, (r) => reports.push(r));
  const identity = new IdentityIndex(informers.for("ownedaccesskeys"), informers.for("users"), informers.for("teams"));
  const controller = new UserTeamsController(registry, identity);
  const teams = registry.store("teams");
  const opts = defaultWriteOptions("test");
  const teamsOfAlice = async () => {
    await identity.teams.sync();
    await controller.settled();
    return (await registry.store("users").read(undefined, "alice"))?.status?.teams;
  };
  try {
    await registry.store("users").create(systemContext(), undefined, object("User", "alice", {}), opts);
    await teams.create(systemContext(), undefined, object("Team", "devs", { users: ["alice"] }), opts);
    // Present before the start: the index and the controller start over it.
    await teams.storage.create(teams.key(undefined, "broken"), Buffer.from('{"metadata":{"name":"broken"},"spec":{'));
    await identity.start();
    controller.start();
    assert.deepEqual(await teamsOfAlice(), ["devs"]);

    // devs is overwritten below the API: its last good copy must not keep alice a member.
    const devs = await teams.storage.get(teams.key(undefined, "devs"));
    await teams.storage.update(teams.key(undefined, "devs"), Buffer.from("\u0000garbage"), devs!.modRevision);
    assert.deepEqual(await teamsOfAlice(), []);
    assert.equal(identity.team("devs"), undefined);

    await teams.create(systemContext(), undefined, object("Team", "ops", { users: ["alice"] }), opts);
    assert.deepEqual(await teamsOfAlice(), ["ops"], "later events are still processed");
    // broken names no member, so no consumer has read it: it is reported when first read.
    assert.deepEqual(
      reports.map((r) => r.key),
      [teams.key(undefined, "devs")],
    );
    assert.equal(identity.team("broken"), undefined);
    assert.deepEqual(reports.map((r) => r.key).sort(), [teams.key(undefined, "broken"), teams.key(undefined, "devs")]);
  } finally {
    await controller.stop();
    informers.stop();
    await close();
  }
});
