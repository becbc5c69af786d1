/**
 * `platform … | head`: once the reader is gone, a write to stdout or stderr fails with EPIPE, and
 * Node raises it as an unhandled stream error (a stack trace, exit 1). Like other CLIs, the
 * command ends quietly instead: nobody is left to read what it would write.
 */
let installed = false;

export function endQuietlyWhenOutputCloses(): void {
  // Once per process: tests run main() many times in one process.
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE") throw err;
      // The code the command set so far (0 unless it had already failed): the output was cut, not the work.
      process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
    });
  }
}
