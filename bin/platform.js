#!/usr/bin/env node
// The one executable: `platform start` runs the server, every other subcommand is the client.
import("../dist/cli/main.js")
  .then((m) => m.main(process.argv))
  .catch((err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
