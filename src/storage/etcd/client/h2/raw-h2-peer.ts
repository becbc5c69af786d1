import { type AddressInfo, createServer, type Socket } from "node:net";
import { CLIENT_PREFACE, Flag, FrameReader, FrameType, settingsFrame } from "./frames.js";

/** `:status: 200` (static index 8) and `grpc-status: 0` as a literal without indexing. */
export const TRAILERS_ONLY = Buffer.concat([
  Buffer.from([0x88, 0x00, 11]),
  Buffer.from("grpc-status"),
  Buffer.from([1, 0x30]),
]);

export interface PeerOptions {
  /** The peer's SETTINGS (none by default). */
  readonly settings?: readonly (readonly [number, number])[];
  /** Its SETTINGS go out 20 ms after the client's arrived, not at once: later than the client's first calls. */
  readonly lateSettings?: boolean;
  /** Sees every frame the client sends. */
  readonly onFrame?: (socket: Socket, type: number, id: number, payload: Buffer) => void;
}

/**
 * An HTTP/2 server written frame by frame, for what node:http2 servers never send (tests of the
 * etcd client's connection, storage/etcd/h2/): once a HEADERS of the client arrived,
 * `answer(socket, streamId, connection)` writes (`connection` counts from 0); the frame types
 * the client sent are kept, and the error codes of its GOAWAYs.
 */
export async function rawPeer(
  answer: (socket: Socket, id: number, connection: number) => void,
  options: PeerOptions = {},
) {
  const received: number[] = [];
  const goaways: number[] = [];
  const settings = settingsFrame(options.settings ?? []);
  let connections = 0;
  const server = createServer((socket) => {
    const connection = connections++;
    let preface = Buffer.alloc(0);
    const reader = new FrameReader((type, flags, id, payload) => {
      received.push(type);
      if (type === FrameType.GOAWAY) goaways.push(payload.readUInt32BE(4));
      if (type === FrameType.SETTINGS && !(flags & Flag.ACK) && options.lateSettings) {
        setTimeout(() => socket.write(settings), 20);
      }
      if (type === FrameType.HEADERS) answer(socket, id, connection);
      options.onFrame?.(socket, type, id, payload);
    });
    if (!options.lateSettings) socket.write(settings);
    socket.on("data", (chunk: Buffer) => {
      if (preface.length < CLIENT_PREFACE.length) {
        preface = Buffer.concat([preface, chunk]);
        if (preface.length < CLIENT_PREFACE.length) return;
        chunk = preface.subarray(CLIENT_PREFACE.length);
      }
      reader.push(chunk);
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, received, goaways, connections: () => connections };
}
