import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/health/check.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { anEvent, invoke } from "../../support/builders.js";

describe("GET /health", () => {
  const dynamo = mockDynamo();
  const s3 = mockS3();

  it("answers {status: ok}, uncached, without a key and without touching any AWS service", async () => {
    const answer = await invoke(handler, anEvent({ method: "GET", path: "/health", resource: "/health", caller: null }));

    expect(answer.statusCode).toBe(200);
    expect(answer.json).toStrictEqual({ status: "ok" });
    expect(answer.headers?.["cache-control"]).toBe("no-store");
    expect(answer.headers?.["x-request-id"]).toBeTruthy();
    expect(dynamo.calls()).toEqual([]);
    expect(s3.calls()).toEqual([]);
  });

  it("ignores whatever a caller sends: a query, a bogus key", async () => {
    const answer = await invoke(handler, anEvent({ method: "GET", path: "/health", resource: "/health", caller: null, query: { deep: "true" }, headers: { Authorization: "Bearer not-a-key" } }));

    expect(answer.statusCode).toBe(200);
    expect(answer.json).toStrictEqual({ status: "ok" });
  });
});
