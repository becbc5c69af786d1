/**
 * The etcd client's public API (README.md beside this file says what it is and why it exists).
 * Nothing outside this folder imports anything but this file.
 */
export { EtcdClient, type EtcdClientOptions, type Lease, type LeaseId } from "./etcd-client.js";
export type { etcdserverpb, mvccpb } from "./generated-codec.js";
export type { BidiHandlers, GrpcBidiStream } from "./grpc-bidi.js";
export {
  CODE_RESOURCE_EXHAUSTED,
  CODE_UNAUTHENTICATED,
  CODE_UNAVAILABLE,
  DEFAULT_MAX_RECEIVE_MESSAGE_BYTES,
  MessageTooLargeError,
  transportReason,
} from "./grpc-unary.js";
export { ErrorCode as H2ErrorCode } from "./h2/frames.js";
export {
  type Bytes,
  type Compare,
  type DeleteRangeRequest,
  type DeleteRangeResponse,
  type EtcdKv,
  EtcdRequestError,
  type PutRequest,
  type RangeRequest,
  type RangeResponse,
  type RequestOp,
  type ResponseOp,
  type TxnRequest,
  type TxnResponse,
} from "./kv-calls.js";
export { encodeWatchCreate, type WatchResponse, WatchResponseDecoder } from "./watch-response.js";
