import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { failInterruptedImports, failInterruptedJobs, IMPORT_RESTART_MESSAGE, RESTART_MESSAGE } from "../../../infra/local/recovery.js";
import type { DatasetImportTask } from "../../../shared/domain/observability/dataset-imports.js";
import type { TaskStatus } from "../../../shared/schemas/observability/dataset-imports.js";
import { datasetTaskStore } from "../../../shared/store/observability/dataset-tasks.js";
import type { BatchStatus } from "../../../shared/schemas/batch.js";
import { batchStore } from "../../../shared/store/batch.js";
import { aBatchJob } from "../../support/batch-table.js";

/** Jobs of one fresh workspace, one per status, as a previous `npm start` left them. */
async function leftBehind(statuses: BatchStatus[]) {
  const workspace = randomUUID();
  const jobs = statuses.map((status) => aBatchJob({ workspace, status, completedAt: status === "SUCCESS" ? 1_700_000_100 : null }));
  for (const job of jobs) await batchStore.create(job, job.createdAt * 1000);
  return { workspace, jobs };
}

describe("restart recovery of the local engine", () => {
  it("fails every job left queued, running or being cancelled, saying why, and leaves finished jobs alone", async () => {
    const { workspace, jobs } = await leftBehind(["QUEUED", "RUNNING", "CANCELLATION_REQUESTED", "SUCCESS"]);
    const before = Math.floor(Date.now() / 1000);
    const failed = await failInterruptedJobs({ only: (job) => job.workspace === workspace });
    expect(failed.map((j) => j.id).toSorted()).toEqual(jobs.slice(0, 3).map((j) => j.id).toSorted());
    for (const job of jobs.slice(0, 3)) {
      const stored = (await batchStore.get(workspace, job.id))!;
      expect(stored).toMatchObject({ status: "FAILED", errors: [{ message: RESTART_MESSAGE, count: 1 }] });
      expect(stored.completedAt).toBeGreaterThanOrEqual(before);
    }
    expect(await batchStore.get(workspace, jobs[3]!.id)).toMatchObject({ status: "SUCCESS", completedAt: 1_700_000_100, errors: [] });
  });

  it("takes the failed jobs out of the active index, so a second start finds nothing to do", async () => {
    const { workspace } = await leftBehind(["RUNNING"]);
    const only = (job: { workspace: string }) => job.workspace === workspace;
    expect(await failInterruptedJobs({ only })).toHaveLength(1);
    expect((await batchStore.listActive()).filter(only)).toEqual([]);
    expect(await failInterruptedJobs({ only })).toEqual([]);
  });
});

/** Import tasks of one fresh workspace, one per status, as a previous `npm start` left them. */
async function importsLeftBehind(statuses: TaskStatus[]) {
  const workspace = randomUUID();
  const at = "2026-11-27T10:00:00.000Z";
  const tasks = statuses.map(
    (status): DatasetImportTask => ({
      workspace,
      id: randomUUID(),
      datasetId: randomUUID(),
      creatorId: "user-1",
      createdAt: at,
      updatedAt: at,
      status,
      source: "FILE",
      fileId: randomUUID(),
      cursor: 120,
      line: 3,
      processed: 2,
      imported: 2,
      failed: 0,
      failures: [],
      message: status === "COMPLETED" ? "Imported 2 records" : null,
    }),
  );
  for (const task of tasks) await datasetTaskStore.create(task);
  return { workspace, tasks };
}

describe("restart recovery of dataset imports", () => {
  it("fails every import left running, saying why, keeps its counts, and leaves finished ones alone; a second start finds nothing", async () => {
    const { workspace, tasks } = await importsLeftBehind(["RUNNING", "COMPLETED"]);
    const only = (task: { workspace: string }) => task.workspace === workspace;

    const failed = await failInterruptedImports({ only });

    expect(failed.map((t) => t.id)).toEqual([tasks[0]!.id]);
    expect(await datasetTaskStore.get(workspace, tasks[0]!.id)).toMatchObject({ status: "FAILED", message: IMPORT_RESTART_MESSAGE, imported: 2, processed: 2 });
    expect(await datasetTaskStore.get(workspace, tasks[1]!.id)).toMatchObject({ status: "COMPLETED", message: "Imported 2 records" });
    expect(await failInterruptedImports({ only })).toEqual([]);
  });
});
