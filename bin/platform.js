#!/usr/bin/env node
// The one executable: `platform start` runs the server, every other subcommand is the client.
// It runs the bundled CLI (dist/cli/platform-cli.js, scripts/bundle-cli.js), which starts from
// one file; when the compiled modules are newer than the bundle (tsc ran alone after the last
// `npm run build`; tsc writes every output each time) it runs them instead, so a change is never
// hidden behind a stale bundle.
import { statSync } from "node:fs";

const cli = new URL("../dist/cli/", import.meta.url);
const writtenAt = (file) => statSync(new URL(file, cli), { throwIfNoEntry: false })?.mtimeMs ?? -1;
const entry = writtenAt("platform-cli.js") >= writtenAt("main.js") ? "platform-cli.js" : "main.js";
import(new URL(entry, cli).href)
  .then((m) => m.main(process.argv))
  .catch((err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
