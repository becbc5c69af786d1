import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { ApiError } from "../api/errors.js";
import { kubeBool } from "../api/request-verb.js";
import type { UserInfo } from "../registry/request-context.js";
import { writeStatus, writeStatusToSocket } from "../server/raw-status.js";
import {
  answerInternalError,
  answerInternalUpgradeError,
  type InternalErrorLog,
  stderrLog,
} from "../server/request-guard.js";
import { peerAddress } from "../server/trusted-proxies.js";
import { type ForwardResult, type ForwardTarget, forwardUpgrade } from "./forward.js";
import { forwardHttp } from "./forward-http.js";
import type { ForwardedRequest } from "./gateway-audit.js";
import { loopDetected } from "./gateway-hops.js";

/** Where a request goes, once its caller is known and allowed. */
export interface Resolved {
  forward: ForwardTarget;
  user: UserInfo;
  /** For the audit line: `cluster/NAME`, `project/P/virtualcluster/NAME`. */
  label: string;
}

/**
 * Thrown (or rejected) by a resolver: an ApiError (401/403/404/503) is answered as its Status;
 * wrapped in a CallerRefused when the resolver knows who it refuses (the audit line names them).
 * A resolver answers without a promise when it can (most requests): a promise per request and
 * its turns cost as much as the gateway's own work.
 */
export type Resolver = (req: IncomingMessage) => Resolved | Promise<Resolved>;

/**
 * The part the central gateway and the agent share: resolve (authenticate, authorize, pick the
 * upstream), forward, and write one audit line per request, refusals included.
 */
export class GatewayHandler {
  /** Open exchanges (watches, exec sessions), ended on close so shutdown never waits for them. */
  private readonly open = new Set<{ destroy(): void }>();
  /** The open exchanges that last until their client or upstream ends them. */
  private readonly streams = new WeakSet<object>();

  constructor(
    private readonly resolve: Resolver,
    private readonly audit: (r: ForwardedRequest) => void,
    /** The user of a refused request, when authentication got that far (for the audit line). */
    private readonly label: (req: IncomingMessage) => string,
    /** The client's address (`--trusted-proxies`: from X-Forwarded-For behind a trusted proxy). */
    private readonly clientAddress: (req: IncomingMessage) => string = peerAddress,
    /** Where an exception no Status foresaw is logged (it is answered as a 500). */
    private readonly log: InternalErrorLog = stderrLog,
  ) {}

  get openCount(): number {
    return this.open.size;
  }

  /** Ends every open exchange (server shutdown). */
  closeAll(): void {
    for (const o of this.open) o.destroy();
    this.open.clear();
  }

  /**
   * Ends the long-running exchanges only (watches, `follow` logs, exec and port-forward
   * sessions): a stopping server does not wait for them, while the plain requests in flight may
   * still finish (in-flight-requests.ts).
   */
  closeStreams(): void {
    for (const o of this.open) {
      if (!this.streams.has(o)) continue;
      o.destroy();
      this.open.delete(o);
    }
  }

  private track(o: ServerResponse | Duplex, longRunning: boolean): void {
    if (longRunning) this.streams.add(o);
    this.open.add(o);
    // `close` comes once: on() spares once()'s wrapper, per request.
    o.on("close", () => this.open.delete(o));
  }

  /**
   * Resolves and forwards, or refuses with a Status. Whatever the resolver, the forwarder or
   * the refusal itself throws ends as this request's 500 (request-guard.ts), never as an
   * exception past it: the refusal path runs for anyone, credentials or not.
   */
  serve(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    // Read now: once the exchange is over, node may have detached the socket.
    const source = this.clientAddress(req);
    this.track(res, isLongRunning(req.url ?? ""));
    const failed = (err: unknown) => answerInternalError(req, res, err, this.log);
    const forward = (resolved: Resolved) =>
      forwardHttp(req, res, resolved.forward, (r) =>
        this.audit(this.entry(req, started, source, r, resolved.user, resolved.label)),
      );
    const refuse = (err: unknown) => {
      req.resume();
      const { refusal, user } = refusalOf(err);
      const e = this.statusOf(req, refusal);
      const bytes = writeStatus(res, e.code, e.reason, e.message, e.details);
      this.audit(this.entry(req, started, source, { code: e.code, bytes }, user, this.label(req)));
    };
    const resolved = this.resolveSafely(req);
    if (resolved instanceof Promise) {
      resolved.then(forward, refuse).catch(failed);
      return;
    }
    try {
      forward(resolved);
    } catch (err) {
      failed(err);
    }
  }

  serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const started = performance.now();
    const source = this.clientAddress(req);
    this.track(socket, true);
    socket.on("error", () => socket.destroy());
    Promise.resolve(this.resolveSafely(req))
      .then(
        (resolved) =>
          forwardUpgrade(req, socket, head, resolved.forward, (r) =>
            this.audit(this.entry(req, started, source, r, resolved.user, resolved.label)),
          ),
        (err) => {
          const { refusal, user } = refusalOf(err);
          const e = this.statusOf(req, refusal);
          const bytes = writeStatusToSocket(socket, req.method, e.code, e.reason, e.message, e.details);
          this.audit(this.entry(req, started, source, { code: e.code, bytes }, user, this.label(req)));
        },
      )
      .catch((err) => answerInternalUpgradeError(req, socket, err, this.log));
  }

  /**
   * The resolver's answer, a request that went round a loop refused first (gateway-hops.ts); a
   * resolver that throws is a rejection like any other.
   */
  private resolveSafely(req: IncomingMessage): Resolved | Promise<Resolved> {
    try {
      const loop = loopDetected(req);
      if (loop) return Promise.reject(loop);
      return this.resolve(req);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The Status of a refusal; an error that is none (a failure nobody foresaw) is logged, and a 500. */
  private statusOf(req: IncomingMessage, err: unknown) {
    if (err instanceof ApiError) return err.status;
    this.log.error(
      { err, method: req.method, path: (req.url ?? "").split("?")[0] },
      "gateway request failed unexpectedly",
    );
    return {
      code: 500,
      reason: "InternalError" as const,
      // Nothing of the exception itself: it may name what the caller may not see.
      message: "an unexpected error occurred; see the server log",
      details: undefined,
    };
  }

  private entry(
    req: IncomingMessage,
    started: number,
    sourceAddress: string,
    r: ForwardResult,
    user: UserInfo | undefined,
    label: string,
  ): ForwardedRequest {
    return {
      user,
      target: label,
      method: req.method ?? "",
      path: pathBelow(req.url ?? "", label),
      code: r.code,
      bytes: r.bytes,
      durationMs: performance.now() - started,
      sourceAddress,
    };
  }
}

/**
 * A refusal of a caller the resolver had authenticated: the refusal itself (an ApiError, or
 * whatever the resolver threw), and who was refused, for the audit line.
 */
export class CallerRefused extends Error {
  constructor(
    readonly refusal: unknown,
    readonly user: UserInfo,
  ) {
    super("the gateway refused an authenticated caller", { cause: refusal });
  }
}

/** What a resolver threw, and who was refused when it said (CallerRefused). */
function refusalOf(err: unknown): { refusal: unknown; user: UserInfo | undefined } {
  return err instanceof CallerRefused ? err : { refusal: err, user: undefined };
}

function pathBelow(url: string, label: string): string {
  const path = url.split("?")[0] ?? "";
  const i = path.indexOf(`/${label}`);
  return i >= 0 ? path.slice(i + label.length + 1) || "/" : path;
}

/** A watch or a followed log: the response lasts as long as the client or the upstream wants. */
function isLongRunning(url: string): boolean {
  const q = url.indexOf("?");
  if (q < 0) return false;
  const query = new URLSearchParams(url.slice(q + 1));
  return ["watch", "follow"].some((k) => {
    const v = query.get(k);
    return v !== null && kubeBool(v);
  });
}
