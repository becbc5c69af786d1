/**
 * The same KV calls as kv-http.ts, through the etcd3 gRPC client: for the one setup etcd's JSON
 * gateway refuses. With authentication on, etcd 3.4+ answers every gateway request that comes
 * with a client certificate naming a user (a CommonName) with "CommonName of client sending a
 * request against gateway will be ignored", since the gateway cannot pass that identity on;
 * gRPC can (etcd then takes the certificate's CommonName as the user).
 */
import type { Etcd3 } from "etcd3";
import type * as RPC from "etcd3/lib/rpc.js";
import type { Compare, EtcdKv, RangeRequest, RequestOp, TxnRequest, TxnResponse } from "./kv-calls.js";
import { toKv } from "./watch-stream.js";

// Numeric values of etcd3's RPC enums (declared as const enums in its typings).
const TARGET = { CREATE: 1, MOD: 2 } as const;
const RESULT = { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 } as const;

const bytes = (b: string | Buffer): Buffer => (typeof b === "string" ? Buffer.from(b) : b);

function rangeRequest(r: RangeRequest): RPC.IRangeRequest {
  return {
    key: bytes(r.key),
    ...(r.range_end !== undefined ? { range_end: bytes(r.range_end) } : {}),
    ...(r.limit ? { limit: r.limit } : {}),
    ...(r.revision ? { revision: r.revision } : {}),
    ...(r.count_only ? { count_only: true } : {}),
  };
}

function requestOp(op: RequestOp): RPC.IRequestOp {
  if ("range" in op) return { request_range: rangeRequest(op.range) };
  if ("put" in op) return { request_put: { key: bytes(op.put.key), value: bytes(op.put.value) } };
  const d = op.deleteRange;
  return {
    request_delete_range: {
      key: bytes(d.key),
      ...(d.range_end !== undefined ? { range_end: bytes(d.range_end) } : {}),
      prev_kv: d.prev_kv === true,
    },
  };
}

function compare(c: Compare): RPC.ICompare {
  const field = c.target === "CREATE" ? "create_revision" : "mod_revision";
  return { key: bytes(c.key), target: TARGET[c.target], result: RESULT[c.result], [field]: c.revision };
}

function rangeResponse(r: RPC.IRangeResponse) {
  return { revision: Number(r.header.revision), kvs: r.kvs.map(toKv), more: r.more, count: Number(r.count) };
}

export class EtcdKvGrpc implements EtcdKv {
  constructor(private readonly client: Etcd3) {}

  async range(r: RangeRequest) {
    return rangeResponse(await this.client.kv.range(rangeRequest(r)));
  }

  async txn(t: TxnRequest): Promise<TxnResponse> {
    const res = await this.client.kv.txn({
      compare: t.compare.map(compare),
      success: t.success.map(requestOp),
      failure: t.failure.map(requestOp),
    });
    return {
      revision: Number(res.header.revision),
      succeeded: res.succeeded,
      responses: res.responses.map((op) => ({
        ...(op.response_range ? { range: rangeResponse(op.response_range) } : {}),
        ...(op.response_delete_range
          ? {
              deleteRange: {
                revision: Number(op.response_delete_range.header.revision),
                deleted: Number(op.response_delete_range.deleted),
                prevKvs: op.response_delete_range.prev_kvs.map(toKv),
              },
            }
          : {}),
      })),
    };
  }

  async compact(revision: number): Promise<void> {
    await this.client.kv.compact({ revision, physical: true });
  }

  async close(): Promise<void> {
    // The gRPC client belongs to the storage, which closes it.
  }
}
