/**
 * Decoding of the header blocks etcd sends (responses and trailers), with hpack.js's integer,
 * string and Huffman decoding and its dynamic table. Not its stream-based Decompressor: a
 * readable stream in object mode per block would cost more than the rest of a call; the
 * dispatch on the field representation (RFC 7541 §6) is the few lines below.
 */
import hpack from "hpack.js";

/** The dynamic table size the peer may use: we never announce another (SETTINGS_HEADER_TABLE_SIZE). */
const DEFAULT_TABLE_SIZE = 4096;

/** Header fields by lower-case name; a repeated field keeps its last value (gRPC repeats none it reads). */
export type HeaderFields = Record<string, string>;

/** Raised for a block that cannot be decoded: a connection error (COMPRESSION_ERROR). */
export class HpackError extends Error {}

export class HeaderBlockDecoder {
  private readonly table: hpack.Table;
  /** Empty between blocks (a block that fails to decode ends the connection, and this with it). */
  private readonly decoder = hpack.decoder.create();

  /** `tableSize`: the limit we announced, which a dynamic table size update may not exceed. */
  constructor(private readonly tableSize = DEFAULT_TABLE_SIZE) {
    this.table = hpack.table.create({ maxSize: tableSize });
  }

  /** The fields of one whole header block (HEADERS plus CONTINUATIONs), in order into `fields`. */
  decode(block: Buffer): HeaderFields {
    const fields: HeaderFields = {};
    const decoder = this.decoder;
    decoder.push(block);
    let atStart = true;
    try {
      while (!decoder.isEmpty()) if (this.field(decoder, fields, atStart)) atStart = false;
    } catch (err) {
      throw new HpackError(`undecodable header block: ${(err as Error).message}`);
    }
    return fields;
  }

  /** One representation: true for a header field, false for a table size update. */
  private field(decoder: hpack.Decoder, fields: HeaderFields, atStart: boolean): boolean {
    if (decoder.decodeBit()) {
      const entry = this.table.lookup(decoder.decodeInt());
      fields[entry.name] = entry.value;
      return true;
    }
    const incremental = decoder.decodeBit();
    if (!incremental) {
      if (decoder.decodeBit()) {
        this.sizeUpdate(decoder.decodeInt(), atStart);
        return false;
      }
      decoder.decodeBit(); // never indexed: nothing to do for a client that forwards nothing
    }
    const index = decoder.decodeInt();
    let name: string;
    let nameSize: number;
    if (index === 0) {
      const raw = decoder.decodeStr();
      nameSize = raw.length;
      name = hpack.utils.stringify(raw);
    } else {
      const entry = this.table.lookup(index);
      name = entry.name;
      nameSize = entry.nameSize;
    }
    const rawValue = decoder.decodeStr();
    const value = hpack.utils.stringify(rawValue);
    if (incremental) this.table.add(name, value, nameSize, rawValue.length);
    fields[name] = value;
    return true;
  }

  /**
   * A dynamic table size update (§6.3) comes only before the block's first field (§4.2) and
   * within the size we announced: anything else is a decoding error (COMPRESSION_ERROR).
   */
  private sizeUpdate(size: number, atStart: boolean): void {
    if (!atStart) throw new Error("a dynamic table size update after a header field");
    if (size > this.tableSize) throw new Error(`a dynamic table size of ${size}, above the ${this.tableSize} allowed`);
    this.table.updateSize(size);
  }
}
