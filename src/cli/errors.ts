/** An error meant for the user: its message is printed as is (no stack), with exit code 1 unless told. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    /** HTTP status when the error came from the server. */
    readonly status?: number,
    /** Status reason (NotFound, Unauthorized…) when the error came from the server. */
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** Exit code for command-line usage errors (unknown flag, missing argument…), as kubectl and gh use. */
export const USAGE_EXIT_CODE = 2;
