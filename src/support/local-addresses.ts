import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";

/**
 * Addresses the platform sends no one's traffic to unless the operator allows it
 * (`platform start --allow-local-endpoints`): the host itself and what only it can reach. A URL
 * a user writes (a virtual cluster's endpoint, a cluster's kubeconfig server) pointed there would
 * turn the gateway into a proxy to the platform's own loopback services (a plaintext etcd) or to
 * the cloud's instance metadata (credentials). Private network ranges (10/8, fc00::/7, …) are not
 * on the list: in-cluster service addresses live there and are what those settings are for.
 */
const LOCAL_RANGES: ReadonlyArray<{ what: string; list: BlockList }> = [
  ranges("a loopback address", [
    ["127.0.0.0", 8, "ipv4"],
    ["::1", 128, "ipv6"],
  ]),
  // 0.0.0.0 and :: reach the host itself when connected to.
  ranges("an unspecified address", [
    ["0.0.0.0", 8, "ipv4"],
    ["::", 128, "ipv6"],
  ]),
  // 169.254.169.254 is the instance metadata service of most clouds.
  ranges("a link-local address", [
    ["169.254.0.0", 16, "ipv4"],
    ["fe80::", 10, "ipv6"],
  ]),
  // Metadata services outside link-local: AWS over IPv6, Alibaba Cloud.
  ranges("a cloud metadata address", [
    ["fd00:ec2::254", 128, "ipv6"],
    ["100.100.100.200", 32, "ipv4"],
  ]),
];

function ranges(what: string, subnets: Array<[string, number, "ipv4" | "ipv6"]>) {
  const list = new BlockList();
  for (const [net, prefix, family] of subnets) list.addSubnet(net, prefix, family);
  return { what, list };
}

/**
 * Why the platform does not connect to `address` (an IP address literal), in words for an error
 * message ("a loopback address"), or undefined when it may. Host names are not addresses: resolve
 * them first (guarded-lookup.ts).
 */
export function localAddressKind(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 0) return undefined;
  const type = family === 4 ? "ipv4" : "ipv6";
  for (const { what, list } of LOCAL_RANGES) if (list.check(bare, type)) return what;
  if (ownAddresses().check(bare, type)) return "an address of the platform's own host";
  return undefined;
}

/**
 * Every address of this host's network interfaces (the pod's, a VM's): read on every call, as
 * interfaces come and go, and connections are pooled, so this is asked once per new connection.
 */
function ownAddresses(): BlockList {
  const list = new BlockList();
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) list.addAddress(a.address.replace(/%.*$/, ""), a.family === "IPv4" ? "ipv4" : "ipv6");
  }
  return list;
}
