/**
 * The concurrency ring: every registered invariant (test/ring/invariants/) runs with its N writers at
 * once against the embedded API, and one test proves that the checks catch a writer that breaks the rule.
 */
import { describe, expect, it } from "vitest";
import { batchStore } from "../../shared/store/batch.js";
import { useEmbeddedApi } from "../support/api.js";
import { jobNow } from "../support/batch-engine.js";
import { invariants, runInvariant } from "./invariant.js";
import { batchCounters } from "./invariants/batch.js";
import "./invariants/index.js";

const ring = useEmbeddedApi();

describe("concurrency invariants", () => {
  for (const entry of invariants()) it(entry.name, () => runInvariant(entry, ring), 60_000);
});

describe("the ring bites", () => {
  it("fails an invariant whose writer reads, adds and writes back without a condition", async () => {
    // The lost update the real writer's atomic ADD prevents: every writer may read the same count.
    const readModifyWrite: typeof batchCounters.write = async (job) => {
      const seen = await jobNow(job);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await batchStore.setFields(job.workspace, job.id, {
        completedRequests: (seen.completedRequests ?? 0) + 1,
        succeededRequests: seen.succeededRequests ?? 0,
        failedRequests: (seen.failedRequests ?? 0) + 1,
      });
    };

    await expect(runInvariant(batchCounters, ring, { write: readModifyWrite })).rejects.toThrow(/completedRequests/);
  });
});
