import { describe, expect, it } from "vitest";
import { costMicros, dayOf, monthOf, priceOf, spendLimitReached } from "../../../shared/domain/pricing.js";

const list = { as_of: "2026-11-23", currency: "USD", models: { small: { input_per_million: 0.1, output_per_million: 0.3 } } };

describe("pricing", () => {
  it("prices a fine-tuned model as its root, and an unknown model not at all", () => {
    expect(priceOf(list, { id: "ft:small:acme", root: "small" })).toBe(list.models.small);
    expect(priceOf(list, { id: "other" })).toBeUndefined();
  });

  it("prices a call at the price of the deployment that answered when it has its own, at the model's otherwise", () => {
    const withDeployments = { ...list, deployments: { "vllm-gpu/mistral-small": { input_per_million: 0, output_per_million: 0 } } };

    expect(priceOf(withDeployments, { id: "small" }, "vllm-gpu/mistral-small")).toStrictEqual({ input_per_million: 0, output_per_million: 0 });
    expect(priceOf(withDeployments, { id: "small" }, "bedrock-eu/mistral.small")).toBe(list.models.small);
    expect(priceOf(withDeployments, { id: "small" })).toBe(list.models.small);
  });

  it("costs a call in whole micro-dollars, rounded up", () => {
    expect(costMicros(list.models.small, { promptTokens: 1_000_000, completionTokens: 0 })).toBe(100_000);
    expect(costMicros(list.models.small, { promptTokens: 3, completionTokens: 1 })).toBe(1);
    expect(costMicros(undefined, { promptTokens: 10, completionTokens: 10 })).toBe(0);
  });

  it("prices prompt tokens read from the upstream's cache at the cached price, at the input price without one", () => {
    const cachedPrice = { input_per_million: 3, output_per_million: 15, cached_input_per_million: 0.3 };

    expect(costMicros(cachedPrice, { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 800_000 })).toBe(200_000 * 3 + 800_000 * 0.3);
    expect(costMicros(list.models.small, { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 800_000 })).toBe(100_000);
    // An upstream that reports more cached tokens than the prompt has is not paid back.
    expect(costMicros(cachedPrice, { promptTokens: 10, completionTokens: 0, cachedTokens: 50 })).toBe(Math.ceil(10 * 0.3));
  });

  it("reaches a limit when the month's spend equals or passes it, never without a limit", () => {
    const limit = { value: 1, currency: "USD", noMonthlyLimit: false };
    expect(spendLimitReached({ limit, spentMicros: 999_999 })).toBe(false);
    expect(spendLimitReached({ limit, spentMicros: 1_000_000 })).toBe(true);
    expect(spendLimitReached({ limit: { value: null, currency: null, noMonthlyLimit: true }, spentMicros: 9e12 })).toBe(false);
    expect(spendLimitReached({ limit: null, spentMicros: 9e12 })).toBe(false);
  });

  it("keys months and days in UTC", () => {
    expect(monthOf(new Date("2026-11-30T23:59:59.999Z"))).toBe("2026-11");
    expect(dayOf(new Date("2026-12-01T00:00:00.000Z"))).toBe("2026-12-01");
  });
});

describe("config/prices.json", () => {
  it("prices in the currency spend limits are set in, and prices every model of the catalogs", async () => {
    const { priceList } = await import("../../../shared/services/usage/spend.js");
    const { SpendLimitIn } = await import("../../../shared/schemas/usage.js");
    expect(SpendLimitIn.parse({ value: 1 })).toMatchObject({ currency: priceList.currency });
    const { readFileSync } = await import("node:fs");
    for (const catalog of ["models.offline.json", "models.aws.json"]) {
      const models = JSON.parse(readFileSync(new URL(`../../../config/${catalog}`, import.meta.url), "utf8")).models as { id: string }[];
      for (const model of models) expect(priceList.models[model.id], `${catalog}: ${model.id}`).toBeDefined();
    }
  });
});
