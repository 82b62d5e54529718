/**
 * One streamed answer must not hold the server for everyone (issue 24; docs/benchmarks.md §20: a streamed chat
 * with a long run of spaces, a json_object echo and n = 16 held `npm start` for 20 s in the soak). While the
 * heaviest stream the offline model can be asked for is being answered, another caller's request is answered.
 */
import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { inferenceClient, userSays } from "../../support/inference-client.js";

const { api, tenant } = useEmbeddedApi();
const client = inferenceClient(api, tenant);

describe("a heavy streamed answer", () => {
  it("is bounded, and another request is answered while it streams", async () => {
    const heavy = { ...userSays("mistral-small-latest", " ".repeat(200_000)), stream: true, n: 16, response_format: { type: "json_object" } };
    const started = performance.now();
    const streaming = client.chatStreamed(heavy);
    // Asked once the heavy call is under way: it waits for the event loop, not for the other answer.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const asked = performance.now();
    const models = await client.listModels();
    const otherMs = performance.now() - asked;
    const answer = await streaming;
    const heavyMs = performance.now() - started;

    expect(models.status).toBe(200);
    expect(answer.status).toBe(200);
    // 16 choices, each an echo of at most 2,000 characters: a bounded number of frames.
    expect(answer.frames.length).toBeLessThan(16 * 2_100);
    expect(otherMs, `GET /v1/models took ${Math.round(otherMs)} ms while the stream took ${Math.round(heavyMs)} ms`).toBeLessThan(Math.max(2_000, heavyMs / 2));
  });
});
