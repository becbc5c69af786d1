import type { ControllerWiring } from "./controller-wiring.js";

/**
 * A controller whose start, stop and settled are its wiring's (controller-wiring.ts): what the
 * controller adds is how it processes a key and which events queue which keys.
 */
export abstract class WiredController {
  protected abstract readonly wiring: ControllerWiring;

  start(): Promise<void> {
    return this.wiring.start();
  }

  stop(): Promise<void> {
    return this.wiring.stop();
  }

  /** Resolves when no key waits or is processed (tests); see ControllerWiring.settled. */
  settled(): Promise<void> {
    return this.wiring.settled();
  }
}
