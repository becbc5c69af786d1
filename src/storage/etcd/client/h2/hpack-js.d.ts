// The parts of `hpack.js` (no bundled types) the etcd client's header decoder uses (hpack-decoder.ts).
declare module "hpack.js" {
  namespace hpack {
    interface Decoder {
      push(chunk: Buffer): void;
      isEmpty(): boolean;
      decodeBit(): number;
      decodeInt(): number;
      /** The string's octets (Huffman-decoded when it was coded). */
      decodeStr(): ArrayLike<number>;
    }
    interface TableEntry {
      readonly name: string;
      readonly value: string;
      readonly nameSize: number;
    }
    interface Table {
      lookup(index: number): TableEntry;
      add(name: string, value: string, nameSize: number, valueSize: number): void;
      updateSize(size: number): void;
    }
  }
  const hpack: {
    decoder: { create(): hpack.Decoder };
    table: { create(options: { maxSize: number }): hpack.Table };
    utils: { stringify(octets: ArrayLike<number>): string };
  };
  export default hpack;
}
