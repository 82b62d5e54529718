import { describe, expect, it } from "vitest";
import { newSpanId, newTraceId } from "../../../../shared/domain/observability/genai.js";

describe("trace and span ids", () => {
  it("are lowercase hex of W3C trace-context length: 32 for a trace, 16 for a span", () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
  });

  it("never repeat across many refills of the random pool", () => {
    // 4 KB a pool: 2,000 trace ids and 2,000 span ids draw ~12 pools.
    const traces = Array.from({ length: 2_000 }, newTraceId);
    const spans = Array.from({ length: 2_000 }, newSpanId);
    expect(new Set(traces).size).toBe(traces.length);
    expect(new Set(spans).size).toBe(spans.length);
    expect(traces.every((id) => /^[0-9a-f]{32}$/.test(id) && id !== "0".repeat(32))).toBe(true);
  });
});
