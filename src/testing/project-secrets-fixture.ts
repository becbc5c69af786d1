import { postObject } from "./gateway-fixture.js";
import type { TestServer } from "./test-server.js";

/**
 * What the tests of project secrets through the CLI and the console start from: user vera, who
 * views project web (platform-management-view, so she reads its secrets without their data), and
 * SharedSecret platform/db whose key `password` holds `password`. Returns an access key of vera's.
 */
export async function projectWithViewer(server: TestServer, password: string): Promise<string> {
  await postObject(server, "users", { metadata: { name: "vera" }, spec: {} });
  const key = await postObject(server, "ownedaccesskeys", { metadata: { name: "vera-key" }, spec: { user: "vera" } });
  await postObject(server, "projects", {
    metadata: { name: "web" },
    spec: { members: [{ kind: "User", name: "vera", clusterRole: "platform-management-view" }] },
  });
  await postObject(server, "namespaces/platform/sharedsecrets", {
    metadata: { name: "db" },
    spec: { data: { password: Buffer.from(password).toString("base64") } },
  });
  return key.spec.key as string;
}
