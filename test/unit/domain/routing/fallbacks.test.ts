import { describe, expect, it } from "vitest";
import { modelsToTry, type RoutableModel } from "../../../../shared/domain/routing/fallbacks.js";

const catalog: RoutableModel[] = [
  { name: "small", contextLength: 32_000, fallbacks: ["large", "small", "gone", "medium", "large"] },
  { name: "medium", contextLength: 64_000 },
  { name: "large", contextLength: 128_000, fallbacks: ["medium"] },
  { name: "unsized" },
];
const named = (name: string) => catalog.find((m) => m.name === name);
async function names(models: AsyncIterable<RoutableModel>): Promise<string[]> {
  const out: string[] = [];
  for await (const model of models) out.push(model.name);
  return out;
}

describe("modelsToTry", () => {
  it("tries the model asked for, then its fallbacks in order, each once, skipping names the catalog lacks", async () => {
    expect(await names(modelsToTry(named("small")!, 1_000, named))).toStrictEqual(["small", "large", "medium"]);
    expect(await names(modelsToTry(named("unsized")!, 10_000_000, named))).toStrictEqual(["unsized"]);
  });

  it("goes past the models whose context cannot hold the prompt (the context-window fallback)", async () => {
    expect(await names(modelsToTry(named("small")!, 50_000, named))).toStrictEqual(["large", "medium"]);
    expect(await names(modelsToTry(named("small")!, 100_000, named))).toStrictEqual(["large"]);
    expect(await names(modelsToTry(named("small")!, 200_000, named))).toStrictEqual([]);
  });

  it("does not follow a fallback's own fallbacks", async () => {
    expect(await names(modelsToTry(named("large")!, undefined, named))).toStrictEqual(["large", "medium"]);
  });
});

describe("modelsToTry is lazy", () => {
  it("looks up no fallback while the call is served by the first model", async () => {
    const looked: string[] = [];
    const models = modelsToTry(named("small")!, 1_000, (name) => (looked.push(name), named(name)));

    expect((await models.next()).value).toMatchObject({ name: "small" });
    expect(looked).toStrictEqual([]);
    expect((await models.next()).value).toMatchObject({ name: "large" });
    expect(looked).toStrictEqual(["large"]);
  });
});
