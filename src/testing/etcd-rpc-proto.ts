/**
 * etcd's own protobuf definitions (the .proto files the etcd client's codec is generated from,
 * src/storage/etcd/client/proto/), loaded by protobufjs's reflection, for tests that write or read
 * etcd's messages by hand to check the client's field-by-field codec against them.
 */
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

// The same two levels up from src/testing/ and dist/testing/: the repository.
const protoDir = fileURLToPath(new URL("../../src/storage/etcd/client/proto/", import.meta.url));

/** etcd's rpc.proto and the files it imports; keepCase: the proto's own field names (create_revision). */
export function loadEtcdProto(options: { keepCase: boolean }): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith("/") ? target : `${protoDir}${target}`);
  return root.loadSync("etcd/api/etcdserverpb/rpc.proto", options);
}

const root = loadEtcdProto({ keepCase: true });

export const WatchRequest = root.lookupType("etcdserverpb.WatchRequest");
export const WatchResponse = root.lookupType("etcdserverpb.WatchResponse");
export const Event = root.lookupType("mvccpb.Event");

/** `message` encoded as a `type`. */
export const encodeAs = (type: protobuf.Type, message: object): Buffer =>
  Buffer.from(type.encode(type.fromObject(message)).finish());
