import { afterEach, describe, expect, it } from "vitest";
import { OfflineProvider } from "../../../shared/inference/providers/offline.js";
import { PROVIDERS_ENV, providerNamed } from "../../../shared/inference/registry.js";

const configured = process.env[PROVIDERS_ENV];

afterEach(() => {
  if (configured === undefined) delete process.env[PROVIDERS_ENV];
  else process.env[PROVIDERS_ENV] = configured;
});

describe("inference provider registry", () => {
  it("builds the provider a name is configured as", async () => {
    const provider = await providerNamed("offline");

    expect(provider).toBeInstanceOf(OfflineProvider);
    expect(provider.backend).toBe("offline");
  });

  it("answers the same instance for the same name", async () => {
    expect(await providerNamed("offline")).toBe(await providerNamed("offline"));
  });

  it("answers different instances for different names of the same type", async () => {
    process.env[PROVIDERS_ENV] = JSON.stringify({ offline: { type: "offline" }, "offline-b": { type: "offline" } });

    expect(await providerNamed("offline-b")).not.toBe(await providerNamed("offline"));
  });

  it("rejects an unknown provider name with a message naming it and the setting", async () => {
    await expect(providerNamed("nope")).rejects.toThrow("No inference provider 'nope' is configured (INFERENCE_PROVIDERS)");
  });

  it("finds a provider configured after a failed lookup of its name", async () => {
    await expect(providerNamed("late")).rejects.toThrow();
    process.env[PROVIDERS_ENV] = JSON.stringify({ late: { type: "offline" } });

    await expect(providerNamed("late")).resolves.toBeInstanceOf(OfflineProvider);
  });

  it("rejects a provider whose configuration is invalid", async () => {
    process.env[PROVIDERS_ENV] = JSON.stringify({ broken: { type: "openai-compatible", baseUrl: "not a url" } });

    await expect(providerNamed("broken")).rejects.toThrow();
  });
});
