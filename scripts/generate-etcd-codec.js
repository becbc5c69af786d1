#!/usr/bin/env node
/**
 * Generates the etcd client's protobuf codec (src/storage/etcd/client/generated/) from etcd's own
 * .proto files (src/storage/etcd/client/proto/) with protobufjs's static code generator: only the
 * messages named in proto/messages.json and the messages they contain.
 *
 *   node scripts/generate-etcd-codec.js          writes generated/etcd-rpc.cjs and etcd-rpc.d.cts
 *   node scripts/generate-etcd-codec.js --to DIR writes them into DIR instead (the test compares)
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const client = join(root, "src", "storage", "etcd", "client");
const toAt = process.argv.indexOf("--to");
const out = toAt > 0 ? resolve(process.argv[toAt + 1]) : join(client, "generated");
mkdirSync(out, { recursive: true });

const bin = (name) => join(root, "node_modules", "protobufjs-cli", "bin", name);
// Written as .js first: pbts (jsdoc) reads only .js files.
const js = join(out, "etcd-rpc.js");
execFileSync(
  process.execPath,
  [
    bin("pbjs"),
    "--target",
    "static-module",
    "--wrap",
    "commonjs",
    "--dependency",
    "protobufjs/minimal",
    // Field names as etcd spells them (create_revision), as in etcd's documentation.
    "--keep-case",
    // Encode and decode only: the client builds plain objects and never verifies or converts them.
    "--no-create",
    "--no-verify",
    "--no-convert",
    "--no-delimited",
    "--no-typeurl",
    "--no-service",
    "--filter",
    join(client, "proto", "messages.json"),
    "--path",
    join(client, "proto"),
    "--out",
    js,
    join(client, "proto", "etcd", "api", "etcdserverpb", "rpc.proto"),
  ],
  { stdio: "inherit" },
);
execFileSync(process.execPath, [bin("pbts"), "--out", join(out, "etcd-rpc.d.cts"), js], { stdio: "inherit" });
// CommonJS in a package of ES modules: .cjs (protobufjs/minimal is CommonJS too, which an ES
// module wrapper could not import by name).
renameSync(js, join(out, "etcd-rpc.cjs"));
