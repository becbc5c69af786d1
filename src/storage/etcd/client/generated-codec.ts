/**
 * etcd's messages, encoded and decoded by the code generated from etcd's own .proto files
 * (generated/etcd-rpc.cjs, by scripts/generate-etcd-codec.js from proto/): the codec of every call
 * but the hot paths (kv-request-frames.ts, kv-proto.ts, watch-response.ts), which their tests check
 * against it.
 *
 * int64 fields decode as protobufjs's Long; etcd's lease IDs use all 64 bits, so they stay Longs,
 * and revisions and TTLs become numbers (refused when inexact).
 */
import type protobuf from "protobufjs/minimal.js";
import type { etcdserverpb } from "./generated/etcd-rpc.cjs";
import generated from "./generated/etcd-rpc.cjs";
import { EtcdRequestError } from "./kv-calls.js";

export type { etcdserverpb, mvccpb } from "./generated/etcd-rpc.cjs";
export const etcdProto = generated;

type Int64 = number | protobuf.Long | GeneratedLong | null | undefined;

const CODE_INTERNAL = 13;

/** An int64 as a BigInt: a Long's two halves, signed. */
function int64BigInt(n: protobuf.Long): bigint {
  return BigInt.asIntN(64, (BigInt(n.high >>> 0) << 32n) | BigInt(n.low >>> 0));
}

/** An int64 that must be exact as a number (revisions, TTLs, counts). */
export function int64Number(n: Int64): number {
  if (n === null || n === undefined) return 0;
  const value = typeof n === "number" ? n : Number(int64BigInt(n));
  if (!Number.isSafeInteger(value))
    throw new EtcdRequestError(`etcd answered an inexact int64 (${value})`, CODE_INTERNAL);
  return value;
}

/** The generated types' int64 other than number: the `long` package's Long, which protobufjs decodes them as. */
export type GeneratedLong = Exclude<NonNullable<etcdserverpb.ILeaseRevokeRequest["ID"]>, number>;
