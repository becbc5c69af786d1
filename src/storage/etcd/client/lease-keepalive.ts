/**
 * One renewal of a lease: etcd's LeaseKeepAlive is a bidirectional stream (a client keeping many
 * leases alive sends a request per renewal on one stream); a client that renews one lease every
 * few seconds opens a stream, sends one request, takes the one answer and closes it, so that no
 * stream stays open between renewals for a failover to cut.
 */
import { etcdProto, type GeneratedLong, int64Number } from "./generated-codec.js";
import type { BidiHandlers, GrpcBidiStream } from "./grpc-bidi.js";
import { EtcdRequestError } from "./kv-calls.js";

const { LeaseKeepAliveRequest, LeaseKeepAliveResponse } = etcdProto.etcdserverpb;

const CODE_DEADLINE_EXCEEDED = 4;

export const LEASE_KEEPALIVE_PATH = "/etcdserverpb.Lease/LeaseKeepAlive";

/**
 * Renews lease `id` once on a stream `open` opens: the lease's TTL from now on, in seconds, or 0
 * when etcd no longer knows it (expired or revoked). Fails when no answer comes within
 * `timeoutMs` or the stream ends first.
 */
export async function keepAliveOnce(
  open: (handlers: BidiHandlers) => Promise<GrpcBidiStream>,
  id: GeneratedLong,
  timeoutMs: number,
): Promise<number> {
  const request = LeaseKeepAliveRequest.encode({ ID: id }).finish();
  let settle: { resolve(ttl: number): void; reject(err: Error): void } | undefined;
  const answer = new Promise<number>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const stream = await open({
    onMessage: (message) => {
      try {
        settle?.resolve(int64Number(LeaseKeepAliveResponse.decode(message).TTL));
      } catch (err) {
        settle?.reject(err as Error);
      }
    },
    onEnd: (err) => settle?.reject(err),
  });
  const timer = setTimeout(() => {
    settle?.reject(new EtcdRequestError(`no lease keepalive answer within ${timeoutMs} ms`, CODE_DEADLINE_EXCEEDED));
  }, timeoutMs);
  try {
    stream.write(request);
    return await answer;
  } finally {
    clearTimeout(timer);
    settle = undefined;
    stream.cancel();
  }
}
