import { describe, expect, it } from "vitest";
import { routes, type RouteRow } from "../../../functions/routes.js";
import { routeMatcher } from "../../../infra/local/route-matcher.js";

const match = routeMatcher(routes);
const row = (method: RouteRow["method"], path: string): RouteRow => ({ method, path, handler: `test/${method} ${path}`, grants: {}, auth: "key", errors: "platform", streaming: false });

describe("the local route matcher", () => {
  it("matches a literal path", () => {
    expect(match("GET", "/v1/files")).toMatchObject({ row: { handler: "files/list" }, pathParameters: {} });
  });

  it("tells methods on the same path apart", () => {
    expect(match("POST", "/v1/files")).toMatchObject({ row: { handler: "files/upload" } });
  });

  it("extracts path parameters", () => {
    expect(match("GET", "/v1/files/0c6f5b38-1d2e-4b5c-9f3a-0a1b2c3d4e5f")).toStrictEqual({
      row: expect.objectContaining({ handler: "files/retrieve" }),
      pathParameters: { file_id: "0c6f5b38-1d2e-4b5c-9f3a-0a1b2c3d4e5f" },
    });
  });

  it("extracts a parameter in the middle of a path", () => {
    expect(match("POST", "/v1/files/uploads/u-1/complete")).toStrictEqual({
      row: expect.objectContaining({ handler: "files/complete-upload" }),
      pathParameters: { upload_id: "u-1" },
    });
  });

  it("prefers a literal segment to a parameter: POST /v1/files/uploads starts an upload", () => {
    expect(match("POST", "/v1/files/uploads")).toMatchObject({ row: { handler: "files/start-upload" }, pathParameters: {} });
  });

  it("does not fall back to the parameter route when the literal route lacks the method", () => {
    expect(match("GET", "/v1/files/uploads")).toStrictEqual({ methodMismatch: true, allowed: ["POST"] });
  });

  it("reports a method mismatch for a known path, with the methods it takes (for a 405's Allow)", () => {
    expect(match("PUT", "/v1/files")).toStrictEqual({ methodMismatch: true, allowed: ["GET", "POST"] });
    expect(match("POST", "/v1/models/m-1")).toStrictEqual({ methodMismatch: true, allowed: ["GET", "DELETE"] });
  });

  it("reports no match for an unknown path", () => {
    expect(match("GET", "/v1/nothing/here")).toStrictEqual({ methodMismatch: false });
  });

  it("does not match a path with more segments than any route", () => {
    expect(match("GET", "/v1/files/a/content/extra")).toStrictEqual({ methodMismatch: false });
  });

  it("ranks an earlier literal segment above a later one", () => {
    const local = routeMatcher([row("GET", "/a/{x}/c"), row("GET", "/a/b/{y}")]);

    expect(local("GET", "/a/b/c")).toStrictEqual({ row: expect.objectContaining({ path: "/a/b/{y}" }), pathParameters: { y: "c" } });
  });

  it("does not depend on the order of the rows", () => {
    const local = routeMatcher([row("GET", "/a/{id}"), row("GET", "/a/me")]);

    expect(local("GET", "/a/me")).toMatchObject({ row: { path: "/a/me" } });
    expect(local("GET", "/a/you")).toMatchObject({ row: { path: "/a/{id}" }, pathParameters: { id: "you" } });
  });
});
