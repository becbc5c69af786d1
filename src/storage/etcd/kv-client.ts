/**
 * The storage's KV client: etcd's JSON gateway (kv-http.ts), or gRPC (kv-grpc.ts) when asked
 * (`transport=grpc`) or from the first time the gateway refuses the connection's identity (a
 * client certificate naming an etcd user, with authentication on; the refused request was not
 * applied, so it is sent again over gRPC).
 *
 * The trade: per call the gateway costs the server about a third of gRPC's CPU but costs etcd
 * two to three times more (etcd decodes the JSON and calls its own gRPC server). Where etcd's
 * CPU is what runs out first (many replicas on one etcd), gRPC is the better choice.
 */
import type { Etcd3 } from "etcd3";
import type { EtcdKv, RangeRequest, RangeResponse, TxnRequest, TxnResponse } from "./kv-calls.js";
import { EtcdKvGrpc } from "./kv-grpc.js";
import { EtcdKvHttp, type EtcdKvHttpOptions, isGatewayRefusal } from "./kv-http.js";

export class EtcdKvClient implements EtcdKv {
  readonly http: EtcdKvHttp;
  /** Set once the gateway refused: every later call goes over gRPC. */
  private grpc: EtcdKvGrpc | undefined;

  constructor(
    options: EtcdKvHttpOptions & { readonly transport?: "gateway" | "grpc" },
    private readonly grpcClient: Etcd3,
  ) {
    this.http = new EtcdKvHttp(options);
    if (options.transport === "grpc") this.grpc = new EtcdKvGrpc(grpcClient);
  }

  /** Which transport the calls use now. */
  get transport(): "http" | "grpc" {
    return this.grpc ? "grpc" : "http";
  }

  range(r: RangeRequest): Promise<RangeResponse> {
    return this.run((kv) => kv.range(r));
  }

  txn(t: TxnRequest): Promise<TxnResponse> {
    return this.run((kv) => kv.txn(t));
  }

  compact(revision: number): Promise<void> {
    return this.run((kv) => kv.compact(revision));
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async run<T>(call: (kv: EtcdKv) => Promise<T>): Promise<T> {
    if (this.grpc) return call(this.grpc);
    try {
      return await call(this.http);
    } catch (err) {
      if (!isGatewayRefusal(err)) throw err;
      this.grpc ??= new EtcdKvGrpc(this.grpcClient);
      return call(this.grpc);
    }
  }
}
