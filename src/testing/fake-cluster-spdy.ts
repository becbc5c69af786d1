import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { SpdyServerSession, type SpdyStream } from "./spdy-server-session.js";

/**
 * The stand-in cluster's side of kubectl's SPDY/3.1 upgrades (kubectl 1.32 uses them with
 * KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false or KUBECTL_PORT_FORWARD_WEBSOCKETS=false): the
 * protocol is negotiated as Kubernetes' httpstream handshake does it — one
 * `X-Stream-Protocol-Version` header line per protocol the client offers, matched exactly, so a
 * proxy that joins them into one line is refused as a real API server refuses it — and after
 * the 101 the raw socket carries SPDY frames (no WebSocket in between).
 */

/** Protocols in the server's order of preference. */
const EXEC_PROTOCOLS = ["v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io"];
const PORT_FORWARD_PROTOCOLS = ["portforward.k8s.io"];

export function isSpdyUpgrade(req: IncomingMessage): boolean {
  return req.headers.upgrade?.toLowerCase() === "spdy/3.1";
}

/**
 * Answers the upgrade: 101 and a SPDY session whose streams go to `onStream`, or 403 when no
 * offered protocol is served. Returns the negotiated protocol (undefined when refused).
 */
export function acceptSpdy(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  kind: "exec" | "portforward",
  onStream: (stream: SpdyStream, protocol: string) => void,
): string | undefined {
  const offered = req.headersDistinct["x-stream-protocol-version"] ?? [];
  const served = kind === "exec" ? EXEC_PROTOCOLS : PORT_FORWARD_PROTOCOLS;
  const protocol = served.find((p) => offered.includes(p));
  if (!protocol) {
    const body = `unable to upgrade: unable to negotiate protocol: client supports ${JSON.stringify(offered)}, server supports ${JSON.stringify(served)}`;
    socket.end(
      `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    return undefined;
  }
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`,
  );
  if (head.length > 0) socket.unshift(head);
  new SpdyServerSession(socket, (stream) => onStream(stream, protocol));
  return protocol;
}

/**
 * `exec` over SPDY (channel protocol v4): once the streams the query asks for are open (error,
 * and stdin/stdout/stderr/resize as requested), `echo ARGS` prints them and `cat` echoes stdin
 * until kubectl closes it; then the output streams end and the error stream carries the v4
 * Status (Success, or the exit code).
 */
export function spdyExec(url: URL): (stream: SpdyStream) => void {
  const wanted = new Set(["error"]);
  for (const s of ["stdin", "stdout", "stderr"]) if (url.searchParams.get(s) === "true") wanted.add(s);
  if (url.searchParams.get("tty") === "true") wanted.add("resize");
  const open = new Map<string, SpdyStream>();
  const command = url.searchParams.getAll("command");
  const finish = (status: object) => {
    open.get("stdout")?.end();
    open.get("stderr")?.end();
    const error = open.get("error");
    error?.write(Buffer.from(JSON.stringify({ metadata: {}, ...status })));
    error?.end();
  };
  const run = () => {
    const stdout = open.get("stdout");
    if (command[0] === "echo") {
      stdout?.write(Buffer.from(`${command.slice(1).join(" ")}\n`));
      return finish({ status: "Success" });
    }
    if (command[0] === "cat" && open.has("stdin")) {
      const stdin = open.get("stdin")!;
      stdin.on("data", (data: Buffer) => stdout?.write(data));
      stdin.on("end", () => finish({ status: "Success" }));
      return;
    }
    open.get("stderr")?.write(Buffer.from(`${command[0] ?? ""}: not found\n`));
    finish({
      status: "Failure",
      reason: "NonZeroExitCode",
      details: { causes: [{ reason: "ExitCode", message: "127" }] },
      message: "command terminated with non-zero exit code",
    });
  };
  return (stream) => {
    const type = stream.headers.streamtype ?? "";
    open.set(type, stream);
    if ([...wanted].every((t) => open.has(t)) && open.size === wanted.size) run();
  };
}
