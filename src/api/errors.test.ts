import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errors, fieldError } from "./errors.js";

// The shapes of k8s.io/apimachinery's NewInvalid and field.Error, which kubectl prints as
// `The <Kind> "<name>" is invalid: <cause.field>: <cause.message>`.
describe("errors.invalid", () => {
  it("names each field once: in the cause's field, never again in its message", () => {
    const err = errors.invalid("Team", "management.platform", "web", [
      fieldError("FieldValueInvalid", "spec.owner", "may name at most one of user, team", { user: "a", team: "b" }),
    ]);
    assert.equal(err.code, 422);
    assert.equal(err.reason, "Invalid");
    assert.equal(
      err.status.message,
      'Team.management.platform "web" is invalid: spec.owner: Invalid value: {"user":"a","team":"b"}: may name at most one of user, team',
    );
    assert.deepEqual(err.status.details, {
      name: "web",
      group: "management.platform",
      kind: "Team",
      causes: [
        {
          reason: "FieldValueInvalid",
          message: 'Invalid value: {"user":"a","team":"b"}: may name at most one of user, team',
          field: "spec.owner",
        },
      ],
    });
  });

  it("words each type of field error as kube does, the value only where kube shows it", () => {
    const err = errors.invalid("Project", "management.platform", "p", [
      fieldError("FieldValueRequired", "spec.clusters", ""),
      fieldError("FieldValueNotSupported", "spec.members[0].kind", 'supported values: "User", "Team"', "Robot"),
      fieldError("FieldValueForbidden", "spec.data", "is kept equal to spec.source", "secret"),
      fieldError("FieldValueDuplicate", "spec.users[1]", "", "a"),
      fieldError("FieldValueTooLong", "metadata.annotations", "may not be more than 262144 bytes", "x"),
      fieldError("FieldValueInvalid", "spec.ttl", "must be at least 1", -1),
      fieldError("FieldValueTooMany", "spec.users", "must have at most 10 items", 12),
    ]);
    assert.deepEqual(
      err.status.details?.causes?.map((c) => [c.field, c.reason, c.message]),
      [
        ["spec.clusters", "FieldValueRequired", "Required value"],
        [
          "spec.members[0].kind",
          "FieldValueNotSupported",
          'Unsupported value: "Robot": supported values: "User", "Team"',
        ],
        ["spec.data", "FieldValueForbidden", "Forbidden: is kept equal to spec.source"],
        ["spec.users[1]", "FieldValueDuplicate", 'Duplicate value: "a"'],
        ["metadata.annotations", "FieldValueTooLong", "Too long: may not be more than 262144 bytes"],
        ["spec.ttl", "FieldValueInvalid", "Invalid value: -1: must be at least 1"],
        ["spec.users", "FieldValueTooMany", "Too many: 12: must have at most 10 items"],
      ],
    );
  });

  it("lists several errors in brackets, each distinct line once; causes keep every error", () => {
    const twice = fieldError("FieldValueRequired", "spec.name", "");
    const err = errors.invalid("Team", "management.platform", "web", [
      twice,
      fieldError("FieldValueInvalid", "metadata.name", "must be lower case", "Web"),
      twice,
    ]);
    assert.equal(
      err.status.message,
      'Team.management.platform "web" is invalid: [spec.name: Required value, metadata.name: Invalid value: "Web": must be lower case]',
    );
    assert.equal(err.status.details?.causes?.length, 3);
  });

  it("without a group or any error, says only what is invalid", () => {
    const err = errors.invalid("DeleteOptions", "", "", []);
    assert.equal(err.status.message, 'DeleteOptions "" is invalid');
  });
});
