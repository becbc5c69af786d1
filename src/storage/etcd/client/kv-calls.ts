/**
 * The etcd KV calls the storage makes (Range; Txn, which carries its puts and deletes; Compact),
 * as one interface (etcd-client.ts sends them over gRPC; tests may stand in for it). Field names follow
 * etcd's API.
 */
import type { KeyValue } from "../../interface.js";

/** A key or value: a string is sent as its UTF-8 bytes. */
export type Bytes = string | Buffer;

export interface RangeRequest {
  readonly key: Bytes;
  readonly range_end?: Bytes;
  readonly limit?: number;
  readonly revision?: number;
  /** The keys without their values. */
  readonly keys_only?: boolean;
  readonly count_only?: boolean;
}

export interface PutRequest {
  readonly key: Bytes;
  readonly value: Bytes;
}

export interface DeleteRangeRequest {
  readonly key: Bytes;
  readonly range_end?: Bytes;
  readonly prev_kv?: boolean;
}

export interface Compare {
  readonly key: Bytes;
  readonly target: "CREATE" | "MOD";
  readonly result: "EQUAL" | "GREATER" | "LESS" | "NOT_EQUAL";
  /** The revision compared with (create_revision or mod_revision, after target). */
  readonly revision: number;
}

export type RequestOp =
  | { readonly range: RangeRequest }
  | { readonly put: PutRequest }
  | { readonly deleteRange: DeleteRangeRequest };

export interface TxnRequest {
  readonly compare: readonly Compare[];
  readonly success: readonly RequestOp[];
  readonly failure: readonly RequestOp[];
}

export interface RangeResponse {
  /** The store's revision when the range was served. */
  readonly revision: number;
  readonly kvs: KeyValue[];
  readonly more: boolean;
  readonly count: number;
}

export interface DeleteRangeResponse {
  readonly revision: number;
  readonly deleted: number;
  readonly prevKvs: KeyValue[];
}

export interface ResponseOp {
  readonly range?: RangeResponse;
  readonly deleteRange?: DeleteRangeResponse;
}

export interface TxnResponse {
  readonly revision: number;
  readonly succeeded: boolean;
  readonly responses: ResponseOp[];
}

/** An error etcd answered (message as etcd words it, e.g. "etcdserver: mvcc: required revision has been compacted"), or a transport failure (code 14). */
export class EtcdRequestError extends Error {
  constructor(
    message: string,
    /** gRPC status code. */
    readonly code: number,
  ) {
    super(message);
    this.name = "EtcdRequestError";
  }
}

/** The KV calls the storage makes. */
export interface EtcdKv {
  range(r: RangeRequest): Promise<RangeResponse>;
  txn(t: TxnRequest): Promise<TxnResponse>;
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}
