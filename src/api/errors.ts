/**
 * The one catalogue of API errors. Every error that reaches a client is a
 * meta.k8s.io/v1 Status built here, with the Kubernetes reason, code and
 * message template (see k8s.io/apimachinery/pkg/api/errors).
 */

export type StatusReason =
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Invalid"
  | "BadRequest"
  | "MethodNotAllowed"
  | "UnsupportedMediaType"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "Unauthorized"
  | "Forbidden"
  | "Gone"
  | "Expired"
  | "InternalError"
  | "StorageReadError"
  | "TooManyRequests"
  | "Timeout"
  | "ServiceUnavailable";

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message: string;
  reason: StatusReason | "";
  details?: StatusDetails;
  code: number;
}

/**
 * A failure Status with its fields in the order kube-apiserver writes them, for what writes one
 * itself rather than throwing an ApiError (a raw socket, a cluster's stand-in in tests).
 */
export function failureStatus(
  code: number,
  reason: Status["reason"],
  message: string,
  details?: StatusDetails,
): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

/** A field-level validation error, as Kubernetes' field.Error. */
export interface FieldError {
  /** FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, FieldValueForbidden, FieldValueDuplicate, FieldValueTooLong, FieldValueTypeInvalid */
  type: FieldErrorType;
  /** Dotted path such as `spec.data[foo]` or `metadata.name`. */
  field: string;
  /** Human detail, e.g. "a lowercase RFC 1123 subdomain must consist of ...". */
  detail: string;
  /** The offending value, when it helps (printed as Kubernetes does). */
  value?: unknown;
}

export type FieldErrorType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueDuplicate"
  | "FieldValueTooLong"
  | "FieldValueTypeInvalid"
  | "FieldValueTooMany";

const fieldErrorWording: Record<FieldErrorType, string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueDuplicate: "Duplicate value",
  FieldValueTooLong: "Too long",
  FieldValueTypeInvalid: "Invalid value",
  FieldValueTooMany: "Too many",
};

/**
 * What one field error says of its field, as kube's field.Error.ErrorBody words it: `Invalid value:
 * "v": detail`, `Required value`, `Forbidden: detail`. A Status cause carries this beside its
 * `field`, so clients (kubectl prints `<field>: <message>`) name the field once.
 */
export function fieldErrorBody(e: FieldError): string {
  const wording = fieldErrorWording[e.type];
  const showValue =
    e.value !== undefined &&
    (e.type === "FieldValueInvalid" ||
      e.type === "FieldValueNotSupported" ||
      e.type === "FieldValueDuplicate" ||
      e.type === "FieldValueTypeInvalid" ||
      // kube's field.TooMany keeps the count found: `Too many: 12: must have at most 10 items`.
      e.type === "FieldValueTooMany");
  const value = showValue ? `: ${typeof e.value === "string" ? JSON.stringify(e.value) : safeJson(e.value)}` : "";
  return `${wording}${value}${e.detail ? `: ${e.detail}` : ""}`;
}

/** One field error on its own line, as kube's field.Error.Error() words it: `spec.x: Invalid value: "v": detail`. */
export function fieldErrorMessage(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

function safeJson(v: unknown): string {
  try {
    const s = JSON.stringify(v);
    return s && s.length > 200 ? `${s.slice(0, 200)}...` : (s ?? String(v));
  } catch {
    return String(v);
  }
}

export function fieldError(type: FieldErrorType, field: string, detail: string, value?: unknown): FieldError {
  return { type, field, detail, value };
}

/** An error carrying a Status, thrown anywhere and turned into a response by the HTTP layer. */
export class ApiError extends Error {
  /** Extra response headers, e.g. Retry-After. */
  headers: Record<string, string> = {};
  constructor(readonly status: Status) {
    super(status.message);
    this.name = "ApiError";
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): string {
    return this.status.reason;
  }
}

export function isApiError(err: unknown, reason?: StatusReason): err is ApiError {
  return err instanceof ApiError && (reason === undefined || err.status.reason === reason);
}

function status(code: number, reason: StatusReason | "", message: string, details?: StatusDetails): ApiError {
  const s: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  if (details) s.details = details;
  return new ApiError(s);
}

/** A qualified resource, as Kubernetes prints it: `users.management.platform`. */
export interface GroupResource {
  group: string;
  resource: string;
}

function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** kube lists at most this many keys in a StorageReadError (then one TooMany cause). */
const MAX_READ_ERROR_CAUSES = 100;

export const errors = {
  notFound(gr: GroupResource, name: string): ApiError {
    return status(404, "NotFound", `${qualified(gr)} "${name}" not found`, {
      name,
      group: gr.group,
      kind: gr.resource,
    });
  },
  /** An unknown path or resource: kube-apiserver's generic 404. */
  notFoundPath(): ApiError {
    return status(404, "NotFound", "the server could not find the requested resource", {});
  },
  alreadyExists(gr: GroupResource, name: string): ApiError {
    return status(409, "AlreadyExists", `${qualified(gr)} "${name}" already exists`, {
      name,
      group: gr.group,
      kind: gr.resource,
    });
  },
  /** The optimistic-concurrency conflict, worded as kube-apiserver words it. */
  conflict(gr: GroupResource, name: string, detail: string): ApiError {
    return status(409, "Conflict", `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${detail}`, {
      name,
      group: gr.group,
      kind: gr.resource,
    });
  },
  staleObject(gr: GroupResource, name: string): ApiError {
    return errors.conflict(
      gr,
      name,
      "the object has been modified; please apply your changes to the latest version and try again",
    );
  },
  /** 409 with a free message (server-side apply conflicts and the like). */
  conflictWithCauses(gr: GroupResource, name: string, message: string, causes: StatusCause[]): ApiError {
    return status(409, "Conflict", message, { name, group: gr.group, kind: gr.resource, causes });
  },
  /**
   * 422 Invalid, as kube's NewInvalid builds it: the message `<Kind>.<group> "<name>" is invalid:
   * <field>: <what>` (several in brackets, each distinct line once), and one cause per field error
   * whose message leaves the field to `field`.
   */
  invalid(kind: string, group: string, name: string, fieldErrors: FieldError[]): ApiError {
    const messages = [...new Set(fieldErrors.map(fieldErrorMessage))];
    const summary =
      messages.length === 0 ? "" : messages.length === 1 ? `: ${messages[0]}` : `: [${messages.join(", ")}]`;
    return status(422, "Invalid", `${kind}${group ? `.${group}` : ""} "${name}" is invalid${summary}`, {
      name,
      group,
      kind,
      causes: fieldErrors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
    });
  },
  badRequest(message: string): ApiError {
    return status(400, "BadRequest", message);
  },
  methodNotAllowed(message = "the server does not allow this method on the requested resource"): ApiError {
    return status(405, "MethodNotAllowed", message);
  },
  unsupportedMediaType(contentType: string, supported: readonly string[]): ApiError {
    return status(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: ${supported.join(", ")}`,
      { causes: [{ reason: "UnsupportedMediaType", message: `unsupported media type: ${contentType || "(none)"}` }] },
    );
  },
  notAcceptable(supported: readonly string[]): ApiError {
    return status(406, "NotAcceptable", `only the following media types are accepted: ${supported.join(", ")}`);
  },
  tooLarge(limitBytes: number): ApiError {
    return status(413, "RequestEntityTooLarge", `Request entity too large: limit is ${limitBytes}`);
  },
  /** 413 with a free detail, as NewRequestEntityTooLargeError words it: `Request entity too large: <detail>`. */
  entityTooLarge(detail: string): ApiError {
    return status(413, "RequestEntityTooLarge", `Request entity too large: ${detail}`);
  },
  /**
   * 422 Invalid about the request rather than an object, as kube-apiserver
   * answers a JSON patch that does not apply (NewGenericServerResponse 422).
   */
  unprocessable(
    message = "the server rejected our request due to an error in our request",
    causes?: StatusCause[],
  ): ApiError {
    return status(422, "Invalid", message, causes && causes.length > 0 ? { causes } : undefined);
  },
  unauthorized(message = "Unauthorized"): ApiError {
    return status(401, "Unauthorized", message);
  },
  forbidden(gr: GroupResource, name: string, detail: string): ApiError {
    const subject = name ? `${qualified(gr)} "${name}"` : qualified(gr);
    return status(403, "Forbidden", `${subject} is forbidden: ${detail}`, {
      name: name || undefined,
      group: gr.group,
      kind: gr.resource,
    });
  },
  forbiddenMessage(message: string): ApiError {
    return status(403, "Forbidden", message);
  },
  /**
   * A non-resource path (/metrics, the backup, /version, …) the caller may not `verb`, in
   * kube-apiserver's words: `forbidden: User "alice" cannot get path "/metrics"`.
   */
  forbiddenPath(userName: string, verb: string, path: string): ApiError {
    return status(403, "Forbidden", `forbidden: User "${userName}" cannot ${verb} path "${path}"`);
  },
  gone(message: string): ApiError {
    return status(410, "Gone", message);
  },
  /** What a list or watch from a compacted revision gets. */
  expired(message: string): ApiError {
    return status(410, "Expired", message);
  },
  resourceVersionTooOld(): ApiError {
    return errors.expired("too old resource version");
  },
  tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
    const e = status(429, "TooManyRequests", message, { retryAfterSeconds });
    e.headers["retry-after"] = String(retryAfterSeconds);
    return e;
  },
  /**
   * A GET, list or watch at a resourceVersion the store has not reached (after waiting for it), as
   * kube-apiserver's storage.NewTooLargeResourceVersionError: 504 Timeout with a cause the
   * reflectors of client-go recognise, and Retry-After.
   */
  resourceVersionTooLarge(asked: string, current: number, retryAfterSeconds = 1): ApiError {
    const e = status(504, "Timeout", `Timeout: Too large resource version: ${asked}, current: ${current}`, {
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
      retryAfterSeconds,
    });
    e.headers["retry-after"] = String(retryAfterSeconds);
    return e;
  },
  timeout(message: string): ApiError {
    return status(504, "Timeout", message);
  },
  unavailable(message: string): ApiError {
    return status(503, "ServiceUnavailable", message);
  },
  /** 503 with Retry-After: what is asked for is on its way (a virtual cluster waking up). */
  unavailableRetryAfter(message: string, retryAfterSeconds: number): ApiError {
    const e = status(503, "ServiceUnavailable", message, { retryAfterSeconds });
    e.headers["retry-after"] = String(retryAfterSeconds);
    return e;
  },
  /** Storage cannot be reached: 503 with Retry-After, which client-go and kubectl retry on. */
  storageUnavailable(detail: string, retryAfterSeconds = 1): ApiError {
    const e = status(503, "ServiceUnavailable", `storage is unavailable, try again later: ${detail}`, {
      retryAfterSeconds,
    });
    e.headers["retry-after"] = String(retryAfterSeconds);
    return e;
  },
  /**
   * One stored object whose value does not decode (kube's storage.NewCorruptObjError as GET and
   * DELETE answer it: 500 InternalError, "StorageError: corrupt object"). `why` is fixed wording,
   * never the parser's message, which quotes the stored bytes.
   */
  corruptObject(gr: GroupResource, name: string, why: string): ApiError {
    return status(
      500,
      "InternalError",
      `Internal error occurred: StorageError: corrupt object: the stored data of ${qualified(gr)} "${name}" could not be decoded (${why}); it can be removed with a DELETE whose DeleteOptions set ignoreStoreReadErrorWithClusterBreakingPotential`,
      { name, group: gr.group, kind: gr.resource },
    );
  },
  /**
   * A LIST that met stored values that do not decode (kube's StatusReasonStoreReadError, whose
   * value is "StorageReadError"): one cause per storage key (at most 100), never their bytes;
   * no keys, no causes (a caller who may not be told them).
   */
  storeReadError(gr: GroupResource, prefix: string, keys: readonly string[]): ApiError {
    const causes: StatusCause[] = keys.slice(0, MAX_READ_ERROR_CAUSES).map((key) => ({
      reason: "UnexpectedServerResponse",
      field: key,
      message: "corrupt object: the stored data could not be decoded",
    }));
    if (keys.length > MAX_READ_ERROR_CAUSES)
      causes.push({ reason: "FieldValueTooMany", message: "too many errors, the list is truncated" });
    return status(500, "StorageReadError", `failed to read one or more ${qualified(gr)} from the storage`, {
      name: prefix,
      group: gr.group,
      kind: gr.resource,
      ...(causes.length ? { causes } : {}),
    });
  },
  internal(message = "an internal error occurred"): ApiError {
    return status(500, "InternalError", `Internal error occurred: ${message}`);
  },
};
