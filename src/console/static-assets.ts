import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, constants, gzipSync } from "node:zlib";

const brotliAsync = promisify(brotliCompress);

/** Where `npm run build` (vite) writes the console: `dist/console-web`, beside this module's folder. */
const DEFAULT_ASSETS_DIR = fileURLToPath(new URL("../console-web/", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

/** Smaller than this is sent as it is: compressing saves nothing worth the work. */
const MIN_COMPRESS_BYTES = 1024;

export interface Asset {
  type: string;
  body: Buffer;
  /** Compressed forms, kept once made (the files never change while running). */
  gzip?: Buffer;
  br?: Buffer;
  /** Brotli is being made (in zlib's thread pool, after the first request for it). */
  brPending?: boolean;
}

/**
 * The built console, read into memory once: a few hundred kilobytes of files that never
 * change while the server runs. Answers pick brotli or gzip by Accept-Encoding.
 */
export class StaticAssets {
  private readonly files = new Map<string, Asset>();

  constructor(readonly dir: string = DEFAULT_ASSETS_DIR) {
    if (!existsSync(join(dir, "index.html"))) return;
    for (const entry of readdirSync(dir, { recursive: true })) {
      const rel = String(entry).split("\\").join("/");
      const type = TYPES[extname(rel)];
      if (!type) continue;
      this.files.set(rel, { type, body: readFileSync(join(dir, rel)) });
    }
  }

  /** Whether the console was built (index.html exists). */
  get built(): boolean {
    return this.files.has("index.html");
  }

  get(path: string): Asset | undefined {
    return this.files.get(path);
  }

  /** The body for the client's Accept-Encoding, and its Content-Encoding (if any). */
  encoded(asset: Asset, acceptEncoding: string | undefined): { body: Buffer; encoding?: "br" | "gzip" } {
    if (asset.body.length < MIN_COMPRESS_BYTES || !acceptEncoding) return { body: asset.body };
    if (/\bbr\b/.test(acceptEncoding)) {
      if (asset.br) return { body: asset.br, encoding: "br" };
      makeBrotli(asset);
    }
    if (/\bgzip\b/.test(acceptEncoding)) {
      asset.gzip ??= gzipSync(asset.body, { level: 6 });
      return { body: asset.gzip, encoding: "gzip" };
    }
    return { body: asset.body };
  }
}

/**
 * Brotli takes a moment for the script (quality 9: 11 takes seconds for little gain): made once, off the event
 * loop, when first asked for (a server no browser visits never pays it); gzip answers until then.
 */
function makeBrotli(asset: Asset): void {
  if (asset.brPending) return;
  asset.brPending = true;
  brotliAsync(asset.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }).then(
    (br) => {
      asset.br = br;
    },
    () => {
      asset.brPending = false;
    },
  );
}
