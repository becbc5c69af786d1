/**
 * The socket under the etcd client's HTTP/2 connection: plain TCP, or TLS offering only `h2` by
 * ALPN (with the CA, client certificate and key the etcd URL names), as node:http2's connect did.
 */
import { isIP, connect as netConnect, type Socket } from "node:net";
import { type TLSSocket, connect as tlsConnect } from "node:tls";

export interface SocketOptions {
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/** A connecting socket, and the event that says it is ready for the HTTP/2 preface. */
export function openSocket(options: SocketOptions): { socket: Socket; ready: "connect" | "secureConnect" } {
  const { host, port, ca, cert, key } = options;
  const socket = options.tls
    ? tlsConnect({
        host,
        port,
        ALPNProtocols: ["h2"],
        // SNI takes names only; node:http2 also left it out for an address.
        ...(isIP(host) === 0 ? { servername: host } : {}),
        ...(ca ? { ca } : {}),
        ...(cert ? { cert } : {}),
        ...(key ? { key } : {}),
      })
    : netConnect({ host, port });
  socket.setNoDelay(true);
  return { socket, ready: options.tls ? "secureConnect" : "connect" };
}

/** Why a ready socket cannot carry HTTP/2, if it cannot: a TLS server that did not select h2. */
export function notH2(socket: Socket, tls: boolean): Error | undefined {
  if (!tls || (socket as TLSSocket).alpnProtocol === "h2") return undefined;
  return Object.assign(new Error("the server does not speak HTTP/2 (ALPN)"), { code: "EPROTO" });
}
