import { describe, expect, it } from "vitest";
import { callerFrom, toCallerContext } from "../../../shared/http/caller.js";
import { aCaller, anEvent } from "../../support/builders.js";

describe("the caller through the authorizer's context", () => {
  it("carries a key's limits as strings and back, a budget of 0 included", () => {
    const caller = aCaller({ rateLimitPerMinute: 30, tokensPerMinute: 5000, tokensPerDay: 200_000, monthlyBudget: 0, models: ["mistral-small-latest", "codestral-latest"] });

    const context = toCallerContext(caller);

    expect(context).toMatchObject({ rateLimitPerMinute: "30", tokensPerMinute: "5000", tokensPerDay: "200000", monthlyBudget: "0", models: "mistral-small-latest,codestral-latest" });
    expect(callerFrom(anEvent({ caller }))).toStrictEqual(caller);
  });

  it("leaves a key without limits with none: its context is what it was before limits existed", () => {
    const caller = aCaller();

    expect(Object.keys(toCallerContext(caller)).sort()).toStrictEqual(["admin", "keyId", "organization", "principal", "principalType", "roles", "workspace"]);
    expect(callerFrom(anEvent({ caller }))).toStrictEqual(caller);
  });
});
