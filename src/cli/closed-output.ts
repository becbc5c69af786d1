/**
 * `platform … | head`: once the reader is gone, a write to stdout or stderr fails with EPIPE, and
 * Node raises it as an unhandled stream error (a stack trace, exit 1). Like other CLIs, a command
 * ends quietly instead: nobody is left to read what it would write. A server (`platform start`,
 * `platform agent`) keeps serving: its work is not its output, so losing a log reader must not
 * stop it; what it would write is dropped.
 */
const SERVING_COMMANDS = new Set(["start", "agent"]);

let installed = false;

export function endQuietlyWhenOutputCloses(command: string | undefined): void {
  // Once per process: tests run main() many times in one process.
  if (installed) return;
  installed = true;
  const serving = command !== undefined && SERVING_COMMANDS.has(command);
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE") throw err;
      if (serving) return;
      // The code the command set so far (0 unless it had already failed): the output was cut, not the work.
      process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
    });
  }
}
