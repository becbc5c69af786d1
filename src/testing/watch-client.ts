/**
 * Test helper: an HTTP watch (`?watch=true`) on a test server, collecting its events as they
 * stream in, so a test can wait for one and inspect the rest.
 */
import type { ClientRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { KubeObject } from "../api/object.js";

export interface StreamedEvent {
  readonly type: string;
  readonly object: KubeObject;
}

export class WatchClient {
  readonly events: StreamedEvent[] = [];
  ended = false;
  private readonly req: ClientRequest;
  private waiters: Array<() => void> = [];

  /** `accept` lets a test ask for another rendering of the events (a meta.k8s.io Table). */
  constructor(server: { url: string; caPem?: string }, path: string, token: string, accept = "application/json") {
    const url = new URL(path, server.url);
    this.req = httpsRequest(url, { headers: { authorization: `Bearer ${token}`, accept }, ca: server.caPem }, (res) => {
      let buffer = "";
      res.on("data", (chunk: Buffer) => {
        buffer += chunk.toString("utf8");
        let nl = buffer.indexOf("\n");
        while (nl >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) this.events.push(JSON.parse(line) as StreamedEvent);
          nl = buffer.indexOf("\n");
        }
        this.wake();
      });
      res.on("end", () => this.finish());
      res.on("error", () => this.finish());
    });
    this.req.on("error", () => this.finish());
    this.req.end();
  }

  /** Resolves when `check` holds on the events so far; rejects if the stream ends first. */
  async until(check: (events: readonly StreamedEvent[]) => boolean): Promise<void> {
    while (!check(this.events)) {
      if (this.ended) throw new Error(`watch ended before the expected event; got ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close(): void {
    this.req.destroy();
  }

  private finish(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
