import { connect } from "node:tls";

/**
 * Sends a WebSocket upgrade request, with no credentials, on its own TLS connection to a server
 * on 127.0.0.1 and returns everything that came back before the connection ended or closed.
 */
export function rawUpgrade(server: { port: number; caPem?: string }, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: server.port, ca: server.caPem, servername: "localhost" }, () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
      );
    });
    let text = "";
    socket.on("data", (c: Buffer) => {
      text += c.toString("utf8");
    });
    socket.on("end", () => resolve(text));
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}
