import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import * as engine from "../../../shared/services/batch/engine/index.js";
import { isFinal } from "../../../shared/domain/batch-rules.js";
import { batchStore } from "../../../shared/store/batch.js";
import { aQueuedJob, chatLines, downloadLines, jobNow, manifestOf } from "../../support/batch-engine.js";
import { batchClient } from "../../support/batch-client.js";
import { filesClient } from "../../support/files-client.js";
import { fulfilled, invariant, range } from "../invariant.js";

const ADDERS = 20;

/** Chunks add their progress at once (shared/store/batch.ts addCounters); the ring's own bite test breaks this writer. */
export const batchCounters = invariant({
  name: `batch: ${ADDERS} parallel progress adds on one job lose none`,
  writers: ADDERS,
  setup: async ({ tenant }) => aQueuedJob(tenant, null, { status: "RUNNING" }),
  write: (job, i) => batchStore.addCounters(job.workspace, job.id, { completedRequests: 1, succeededRequests: i % 2, failedRequests: 1 - (i % 2) }),
  async check(job, outcomes) {
    fulfilled(outcomes);
    expect(await jobNow(job)).toMatchObject({ completedRequests: ADDERS, succeededRequests: ADDERS / 2, failedRequests: ADDERS / 2 });
  },
});

const CANCELS = 6;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

invariant({
  name: `batch: ${CANCELS} cancels racing Finish end the job once, and an acknowledged cancel is honoured`,
  writers: CANCELS + 1,
  async setup({ api, tenant }) {
    const job = await aQueuedJob(tenant, chatLines(30));
    const started = await engine.start({ workspace: job.workspace, jobId: job.id });
    for (const chunk of await manifestOf(started)) await engine.runChunk({ job: started, chunk });
    const batch = batchClient(api, tenant);
    // The route's module loads on its first call: load it now, or every cancel comes late.
    await batch.cancel(randomUUID());
    return { job, started, batch };
  },
  // Writer 0 is the engine's Finish task; the others cancel through the API, spread over Finish's run.
  async write({ started, batch, job }, i) {
    await pause(i === 0 ? 5 : (i - 1) * 15);
    return i === 0 ? { finished: await engine.finish(started) } : { cancel: await batch.cancel(job.id) };
  },
  async check({ job, started }, outcomes) {
    const writes = fulfilled(outcomes);
    let ended = await jobNow(job);
    // Finish ran once and every cancel has answered: nothing may be left to end the job.
    expect(isFinal(ended.status), `job left ${ended.status}`).toBe(true);
    expect(["SUCCESS", "CANCELLED"]).toContain(ended.status);
    expect(writes[0]!.finished!.status).toBe(ended.status);
    const cancels = writes.slice(1).map((w) => w.cancel!);
    for (const reply of cancels) expect([200, 409]).toContain(reply.status);
    if (cancels.some((reply) => reply.status === 200)) expect(ended.status).toBe("CANCELLED");
    else for (const reply of cancels) expect(reply.body.code).toBe("batch_job_finished");
    // Finish again (a retried task) changes nothing.
    await engine.finish(started);
    ended = await jobNow(job);
    expect(ended).toMatchObject({ completedRequests: 30, succeededRequests: 30, failedRequests: 0 });
  },
});

const RUNS = 4;

invariant({
  name: `batch: ${RUNS} overlapping runs of one chunk, then a retry, count and keep every request exactly once`,
  writers: RUNS,
  async setup({ api, tenant }) {
    const job = await aQueuedJob(tenant, chatLines(100));
    const started = await engine.start({ workspace: job.workspace, jobId: job.id });
    const [chunk] = await manifestOf(started);
    return { job, started, chunk: chunk!, files: filesClient(api, tenant) };
  },
  // Overlapping runs of one task: a local Task timeout does not stop the invocation it gave up on.
  write: ({ started, chunk }) => engine.runChunk({ job: started, chunk }),
  async check({ job, started, chunk, files }, outcomes) {
    // Runs that met another's count fail (BatchEngineError); none may fail for another reason.
    for (const outcome of outcomes) if (outcome.status === "rejected") expect((outcome.reason as Error).name).toBe("BatchEngineError");
    // Step Functions retries the failed task: one more run, alone.
    await engine.runChunk({ job: started, chunk });
    await engine.finish(started);
    const ended = await jobNow(job);
    expect(ended).toMatchObject({ status: "SUCCESS", totalRequests: 100, completedRequests: 100, succeededRequests: 100, failedRequests: 0 });
    const lines = await downloadLines(files, ended.outputFile!);
    expect(lines.map((l) => l.custom_id)).toEqual(range(0, 99).map((i) => `r${i}`));
  },
});
