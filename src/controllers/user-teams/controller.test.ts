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
import { flakyRegistry } from "../../testing/flaky-registry.js";
import { waitFor } from "../../testing/wait-for.js";
import { UserTeamsController } from "./controller.js";

const object = (kind: string, name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind,
  metadata: { name },
  spec,
});

test("user-teams: a status write that fails is logged once with its retry, and the retry writes it and says so", async () => {
  const { registry, failNextUpdates, close } = flakyRegistry([teamResource, userResource, ownedAccessKeyResource()]);
  const informers = new SharedInformers(registry);
  const identity = new IdentityIndex(informers.for("ownedaccesskeys"), informers.for("users"), informers.for("teams"));
  const logged: Array<Record<string, unknown>> = [];
  const controller = new UserTeamsController(registry, identity, {
    error: (obj) => logged.push({ level: "error", ...(obj as object) }),
    warn: (obj) => logged.push({ level: "warn", ...(obj as object) }),
  });
  try {
    const opts = defaultWriteOptions("test");
    await registry.store("users").create(systemContext(), undefined, object("User", "alice", {}), opts);
    await registry
      .store("teams")
      .create(systemContext(), undefined, object("Team", "devs", { users: ["alice"] }), opts);
    await identity.start();
    failNextUpdates(2);
    controller.start();
    // Bounded: two retries (250 ms, then 500 ms) and the write.
    const teams = await waitFor(
      "alice's teams written",
      async () => (await registry.store("users").read(undefined, "alice"))?.status?.teams,
      (written) => written !== undefined,
    );
    assert.deepEqual(teams, ["devs"]);
    await controller.settled();
    // The second failure is the first again: not logged; the success after both is.
    assert.deepEqual(
      logged.map((l) => [
        l.level,
        l.controller,
        l.key,
        l.attempt ?? l.failedAttempts,
        /unavailable/.test(String(l.err)),
      ]),
      [
        ["error", "user-teams", "alice", 1, true],
        ["warn", "user-teams", "alice", 2, false],
      ],
    );
    assert.equal(logged[0]!.retryInMs, 250);
  } finally {
    await controller.stop();
    informers.stop();
    await close();
  }
});
