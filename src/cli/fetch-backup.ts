/** Streams the backup lines of a running server (GET /kubernetes/management/backup) over HTTPS. */
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { createInterface } from "node:readline";
import type { Connection } from "./api-client.js";
import { CliError } from "./errors.js";

export async function* fetchBackupLines(conn: Connection): AsyncGenerator<string> {
  const res = await get(conn);
  if ((res.statusCode ?? 0) !== 200) {
    let text = "";
    for await (const chunk of res) text += String(chunk);
    let message = `${res.statusCode} ${text.slice(0, 200)}`;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {}
    throw new CliError(`the server refused the backup: ${message}`, 1, res.statusCode);
  }
  for await (const line of createInterface({ input: res, crlfDelay: Number.POSITIVE_INFINITY })) yield line;
}

async function get(conn: Connection): Promise<IncomingMessage> {
  // Imported here, not statically: the CLI bundle holds no server module (scripts/bundle-cli.js).
  const { BACKUP_PATH } = await import("../backup/backup-route.js");
  const url = new URL(`${conn.server}${BACKUP_PATH}`);
  const isHttps = url.protocol === "https:";
  return new Promise((resolve, reject) => {
    const req = (isHttps ? httpsRequest : httpRequest)(
      url,
      {
        headers: {
          accept: "application/x-ndjson",
          "user-agent": "platform-cli/0.1.0",
          ...(conn.accessKey ? { authorization: `Bearer ${conn.accessKey}` } : {}),
        },
        agent: false,
        ...(isHttps
          ? { ca: conn.certificateAuthorityData || undefined, rejectUnauthorized: !conn.insecureSkipTLSVerify }
          : {}),
      },
      resolve,
    );
    req.on("error", (err) => reject(new CliError(`cannot reach ${conn.server}: ${err.message}`)));
    req.end();
  });
}
