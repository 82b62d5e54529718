import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BadRequest, Conflict, Forbidden, NotFound, PayloadTooLarge, Unauthorized, Unprocessable } from "../../../shared/domain/errors.js";
import { jsonBody } from "../../../shared/http/body.js";
import { zodIssues } from "../../../shared/domain/validation.js";
import { renderError } from "../../../shared/http/errors.js";

const toWireError = (error: unknown) => renderError(error, "platform");

const issuesOf = (schema: z.ZodType, value: unknown, where: "body" | "query" | "path" = "body") => {
  const result = schema.safeParse(value);
  if (result.success) throw new Error("expected the value to be refused");
  return zodIssues(result.error, where);
};

/** What the JSON body step (middy's parser behind our media-type check) throws for a body it cannot take. */
async function jsonParserError(headers: Record<string, string>, body: string): Promise<unknown> {
  const parser = jsonBody();
  try {
    await parser.before!({ event: { headers, body }, context: {}, response: undefined, error: undefined, internal: {} } as never);
  } catch (error) {
    return error;
  }
  throw new Error("expected the parser to throw");
}

describe("zodIssues", () => {
  it("reports a missing field as type missing, msg Field required, located under where it came from", () => {
    expect(issuesOf(z.object({ model: z.string() }), {})).toStrictEqual([{ loc: ["body", "model"], msg: "Field required", type: "missing" }]);
  });

  it("reports each unknown key of a strict object as extra_forbidden", () => {
    expect(issuesOf(z.strictObject({ a: z.string() }), { a: "x", b: 1, c: 2 })).toStrictEqual([
      { loc: ["body", "b"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
      { loc: ["body", "c"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
    ]);
  });

  it("locates nested issues with keys and array indexes", () => {
    const schema = z.object({ parts: z.array(z.object({ etag: z.string() })) });

    expect(issuesOf(schema, { parts: [{ etag: "a" }, {}] })[0]!.loc).toStrictEqual(["body", "parts", 1, "etag"]);
  });

  it("reports a value outside an enum as type enum", () => {
    expect(issuesOf(z.object({ p: z.enum(["a", "b"]) }), { p: "c" })[0]!.type).toBe("enum");
  });

  it.each([
    [z.number().min(1), 0, "greater_than_equal"],
    [z.number().max(1), 2, "less_than_equal"],
    [z.string().min(2), "a", "string_too_short"],
    [z.string().max(2), "abc", "string_too_long"],
    [z.uuid(), "x", "uuid_parsing"],
  ])("maps the bound or format of %s to a FastAPI type", (schema, value, type) => {
    expect(issuesOf(z.object({ v: schema }), { v: value }, "query")).toStrictEqual([{ loc: ["query", "v"], msg: expect.any(String), type }]);
  });

  it("keeps the schema's own message for other issues", () => {
    expect(issuesOf(z.object({ id: z.uuid({ message: "Input should be a valid UUID" }) }), { id: "x" }, "path")[0]!.msg).toBe("Input should be a valid UUID");
  });
});

describe("toWireError", () => {
  it.each([
    [new BadRequest("bad", "invalid_x", "field"), 400, "invalid_request_error", "invalid_x", "field"],
    [new Unauthorized(), 401, "authentication_error", "unauthorized", null],
    [new Forbidden("no", "forbidden"), 403, "permission_error", "forbidden", null],
    [new NotFound("file", "f-1"), 404, "not_found_error", "file_not_found", null],
    [new Conflict("again", "exists"), 409, "conflict_error", "exists", null],
    [new PayloadTooLarge("big", "too_big"), 413, "invalid_request_error", "too_big", null],
  ])("answers %s with its status and the error body", (error, status, type, code, param) => {
    expect(toWireError(error)).toStrictEqual({ status, body: { object: "error", message: error.message, type, param, code } });
  });

  it("answers Unprocessable with 422 and its detail", () => {
    const detail = [{ loc: ["body", "parts"], msg: "too many", type: "value_error" }];

    expect(toWireError(new Unprocessable(detail))).toStrictEqual({ status: 422, body: { detail } });
  });

  it("answers middy's malformed JSON body with 422 json_invalid on the body", async () => {
    const error = await jsonParserError({ "content-type": "application/json" }, "{not json");

    expect(toWireError(error)).toStrictEqual({
      status: 422,
      body: { detail: [{ loc: ["body"], msg: "Invalid or malformed JSON was provided", type: "json_invalid" }] },
    });
  });

  it("keeps a wrong Content-Type a 415", async () => {
    const error = await jsonParserError({ "content-type": "text/plain" }, "{}");

    expect(toWireError(error)).toStrictEqual({
      status: 415,
      body: { object: "error", message: "Unsupported Media Type", type: "invalid_request_error", param: null, code: "invalid_request" },
    });
  });

  it("answers an unknown error with 500 without its message", () => {
    const wire = toWireError(new Error("connect ECONNREFUSED 10.1.2.3:8000 (table platform-files)"));

    expect(wire).toStrictEqual({ status: 500, body: { object: "error", message: "Internal server error", type: "server_error", param: null, code: "internal_error" } });
  });

  it("answers an HTTP library's exposed 4xx with its status and message", () => {
    const error = Object.assign(new Error("Unsupported Media Type"), { statusCode: 415, expose: true });

    expect(toWireError(error)).toStrictEqual({
      status: 415,
      body: { object: "error", message: "Unsupported Media Type", type: "invalid_request_error", param: null, code: "invalid_request" },
    });
  });

  it("answers an HTTP error of 5xx with a plain 500", () => {
    const error = Object.assign(new Error("upstream exploded at 10.1.2.3"), { statusCode: 503 });

    expect(toWireError(error)).toStrictEqual({ status: 500, body: expect.objectContaining({ message: "Internal server error" }) });
  });

  it("answers a thrown non-Error with 500", () => {
    expect(toWireError("boom").status).toBe(500);
  });
});
