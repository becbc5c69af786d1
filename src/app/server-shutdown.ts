import type { Logger } from "pino";
import type { ControllerManager } from "../controllers/controller-manager.js";
import type { InFlightRequests } from "../server/in-flight-requests.js";
import { DEFAULT_SHUTDOWN_GRACE_SECONDS, type RunningServer, type ServerConfig } from "./config.js";

/** Where a server is in its stop: /readyz fails once it is `requested`; requests are refused once `closing`. */
export class ServerStop {
  requested = false;
  closing = false;
}

/** What a stop closes, in the order it closes them (each after what uses it). */
export interface ClosingParts {
  controllers: Pick<ControllerManager, "stop">;
  inFlight: InFlightRequests;
  app: { server: Parameters<InFlightRequests["drain"]>[0]; close(): Promise<unknown> };
  /** Ended at once when the drain begins: their clients reconnect elsewhere. */
  streams: { endStreams(): void };
  gateway: { stop(): void };
  ops: { close(): Promise<void> };
  consoleSessions: { stop(): void };
  audit?: { close(): Promise<void> };
  informers: { stop(): void };
  unregisterInformerMetrics: () => void;
  storage: { close(): Promise<void> };
}

/**
 * RunningServer.close: serving as usual, /readyz failing, for --shutdown-delay; then requests in
 * flight finish within the grace period before anything they use stops; called again, it returns
 * the same stop.
 */
export function closeInOrder(
  config: ServerConfig,
  stop: ServerStop,
  parts: ClosingParts,
  log: Pick<Logger, "warn">,
): RunningServer["close"] {
  let closed: Promise<void> | undefined;
  return (hooks) => {
    stop.requested = true;
    closed ??= (async () => {
      // Serving as usual, /readyz failing, while load balancers notice (--shutdown-delay).
      const delaySeconds = config.shutdownDelaySeconds ?? 0;
      if (delaySeconds > 0) await new Promise((resolve) => setTimeout(resolve, delaySeconds * 1000));
      stop.closing = true;
      hooks?.draining?.();
      // Requests in flight finish (within the grace period) before anything they use stops;
      // watches and forwarded streams end at once (their clients reconnect elsewhere).
      const graceSeconds = config.shutdownGracePeriodSeconds ?? DEFAULT_SHUTDOWN_GRACE_SECONDS;
      const [, cut] = await Promise.all([
        parts.controllers.stop(),
        parts.inFlight.drain(parts.app.server, graceSeconds * 1000, () => parts.streams.endStreams()),
      ]);
      await parts.gateway.stop();
      if (cut > 0) log.warn({ requests: cut }, `requests still in flight after ${graceSeconds} s were cut off`);
      await parts.app.close();
      await parts.ops.close();
      parts.consoleSessions.stop();
      await parts.audit?.close();
      parts.informers.stop();
      parts.unregisterInformerMetrics();
      await parts.storage.close();
    })();
    return closed;
  };
}
