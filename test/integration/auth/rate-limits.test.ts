import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });

/** Past second 50 of a minute, wait for the next one, so a test's requests share one window. */
async function startOfAWindow(): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second > 50) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
}

const list = (key: string) => fetch(`${api.url}/v1/files`, { headers: { authorization: `Bearer ${key}` } });

describe("per-key rate limits", () => {
  it("let exactly the limit through in a minute, however many arrive at once, and answer the rest 429 with Retry-After", async () => {
    const limited = await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, rateLimitPerMinute: 3 });
    await startOfAWindow();

    const answers = await Promise.all(Array.from({ length: 10 }, () => list(limited.key)));

    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(7);
    const retryAfter = Number(refused[0]!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused[0]!.json()).toMatchObject({ object: "error", type: "rate_limit_error", code: "rate_limit_exceeded" });
  });

  it("leave keys without a limit alone, and count each key on its own", async () => {
    const limited = await newTenant({ organization: tenant.caller.organization, workspace: tenant.caller.workspace, rateLimitPerMinute: 1 });
    await startOfAWindow();

    expect((await list(limited.key)).status).toBe(200);
    expect((await list(limited.key)).status).toBe(429);
    const unlimited = await Promise.all(Array.from({ length: 5 }, () => list(tenant.key)));
    expect(unlimited.every((a) => a.status === 200)).toBe(true);
  });
});
