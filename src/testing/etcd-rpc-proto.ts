/**
 * etcd's own protobuf definitions (rpc.proto, as the etcd3 package ships it), for tests that
 * write or read etcd's messages by hand to check the storage's field-by-field codec against them.
 * keepCase: the proto's own field names (etcd3 loads them so too).
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import protobuf from "protobufjs";

const etcd3Dir = dirname(createRequire(import.meta.url).resolve("etcd3/package.json"));
const root = new protobuf.Root().loadSync(join(etcd3Dir, "proto", "rpc.proto"), { keepCase: true });

export const WatchRequest = root.lookupType("etcdserverpb.WatchRequest");
export const WatchResponse = root.lookupType("etcdserverpb.WatchResponse");
export const Event = root.lookupType("mvccpb.Event");

/** `message` encoded as a `type`. */
export const encodeAs = (type: protobuf.Type, message: object): Buffer =>
  Buffer.from(type.encode(type.fromObject(message)).finish());
