import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GrpcStatus, transportReason } from "./grpc-unary.js";
import { ErrorCode } from "./h2/frames.js";

describe("why a gRPC call or stream ended without a status (unary calls and the watch alike)", () => {
  test("an answer that is not gRPC's names its HTTP status, before anything else", () => {
    const reset = new Error("the HTTP/2 connection closed");
    assert.equal(transportReason(503, { error: reset }), "HTTP 503 (not a gRPC answer)");
  });

  test("a connection failure keeps its message and code", () => {
    const error = Object.assign(new Error("HTTP/2 protocol error from the server (FLOW_CONTROL_ERROR): x"), {
      code: "EPROTO",
    });
    assert.equal(transportReason(200, { error }), `${error.message} (EPROTO)`);
    assert.equal(transportReason(0, { error: new Error("gone") }), "gone");
  });

  test("RST_STREAM's code by name, or by number when unknown; no status and no reset says so", () => {
    assert.equal(transportReason(200, { rstCode: ErrorCode.REFUSED_STREAM }), "stream reset (HTTP/2 REFUSED_STREAM)");
    assert.equal(transportReason(0, { rstCode: 0x1f }), "stream reset (HTTP/2 error 0x1f)");
    assert.equal(transportReason(200, {}), "etcd ended the stream without a gRPC status");
  });

  test("the status comes from the trailers or from a trailers-only answer; OK is no error", () => {
    const status = new GrpcStatus();
    status.take({ ":status": "200" });
    assert.equal(status.error(), undefined);
    status.take({ "grpc-status": "14", "grpc-message": "etcdserver%3A%20no%20leader" });
    assert.equal(status.httpStatus, 200);
    assert.deepEqual([status.error()?.code, status.error()?.message], [14, "etcdserver: no leader"]);
  });
});
