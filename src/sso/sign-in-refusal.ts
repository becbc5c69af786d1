import type { FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import { sendError } from "../server/respond.js";
import { sendPage } from "./pages.js";
import type { SignInRefusal } from "./sign-in-limiter.js";

/**
 * 429 with Retry-After for a sign-in the limiter refused: a small page for a browser (it asks for
 * text/html), a Kubernetes Status with reason TooManyRequests for any other client.
 */
export function refuseSignIn(request: FastifyRequest, reply: FastifyReply, refusal: SignInRefusal): FastifyReply {
  const message =
    refusal.scope === "address"
      ? "too many sign-ins were started from this address; retry later"
      : "too many sign-ins are being started on this server; retry later";
  const retryAfter = refusal.retryAfterSeconds;
  if (!wantsHtml(request)) return sendError(reply, errors.tooManyRequests(message, retryAfter));
  reply.header("retry-after", String(retryAfter));
  return sendPage(reply, 429, "Too many sign-ins", [
    `${message[0]!.toUpperCase()}${message.slice(1)}.`,
    `Wait ${retryAfter} second${retryAfter === 1 ? "" : "s"} and start the sign-in again.`,
  ]);
}

function wantsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? "");
}
