#!/usr/bin/env node
// The one executable: `platform start` runs the server, every other subcommand is the client.
// It runs the bundled CLI (dist/cli/platform-cli.cjs, scripts/bundle-cli.js), one CommonJS file:
// this file is CommonJS too (bin/package.json), so a client command never sets up Node's ES module
// loader. When the compiled modules are newer than the bundle (tsc ran alone after the last
// `npm run build`; tsc writes every output each time) it imports them instead, so a change is
// never hidden behind a stale bundle.
const { statSync } = require("node:fs");
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");
const { runWithCodeCache } = require("./code-cache.js");

const cli = join(__dirname, "..", "dist", "cli");
const bundle = join(cli, "platform-cli.cjs");
const built = statSync(bundle, { throwIfNoEntry: false });
const compiledAt = statSync(join(cli, "main.js"), { throwIfNoEntry: false })?.mtimeMs ?? -1;
Promise.resolve()
  .then(() =>
    built && built.mtimeMs >= compiledAt
      ? runWithCodeCache(bundle, built, process.argv)
      : import(pathToFileURL(join(cli, "main.js")).href).then((m) => m.main(process.argv)),
  )
  .catch((err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
