/** The global flags every request honours, set once from the command line (main.ts). */
export const clientSettings = {
  /** --request-timeout in ms (0: none); kubectl's default is none, ours 30 s so a dead host fails. */
  requestTimeoutMs: 30_000,
  /** --debug: print each request and its answer's status on stderr. */
  debug: false,
};
