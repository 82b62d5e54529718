import { describe, expect, it } from "vitest";
import { z } from "zod";
import { queryObject } from "../../../shared/http/query.js";
import { repeated } from "../../../shared/schemas/query.js";
import { anEvent } from "../../support/builders.js";

describe("queryObject", () => {
  it("gives a parameter sent once as a string", () => {
    expect(queryObject(anEvent({ query: { page: "2" } }))).toStrictEqual({ page: "2" });
  });

  it("gives a repeated parameter as an array of every value", () => {
    expect(queryObject(anEvent({ query: { source: ["upload", "mistral"], page: "1" } }))).toStrictEqual({ source: ["upload", "mistral"], page: "1" });
  });

  it("prefers the multi-value view, which keeps repeats the single view drops", () => {
    const event = { ...anEvent(), queryStringParameters: { status: "B" }, multiValueQueryStringParameters: { status: ["A", "B"] } };

    expect(queryObject(event)).toStrictEqual({ status: ["A", "B"] });
  });

  it("takes parameters found only in the single-value view", () => {
    const event = { ...anEvent(), queryStringParameters: { page: "3", search: "x" }, multiValueQueryStringParameters: { page: ["3"] } };

    expect(queryObject(event)).toStrictEqual({ page: "3", search: "x" });
  });

  it("skips empty multi-value entries", () => {
    const event = { ...anEvent(), queryStringParameters: null, multiValueQueryStringParameters: { a: [] } };

    expect(queryObject(event)).toStrictEqual({});
  });

  it("answers an empty object without a query string", () => {
    expect(queryObject(anEvent())).toStrictEqual({});
  });
});

describe("repeated", () => {
  const schema = z.object({ tag: repeated(z.enum(["a", "b"])) });

  it("makes a single value a list of one", () => {
    expect(schema.parse({ tag: "a" })).toStrictEqual({ tag: ["a"] });
  });

  it("keeps a list as it is", () => {
    expect(schema.parse({ tag: ["a", "b"] })).toStrictEqual({ tag: ["a", "b"] });
  });

  it("leaves an absent parameter absent", () => {
    expect(schema.parse({})).toStrictEqual({});
  });

  it("checks every item", () => {
    expect(schema.safeParse({ tag: ["a", "c"] }).success).toBe(false);
  });
});
