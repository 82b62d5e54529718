import * as z from "zod";
import * as batchJobs from "../../shared/services/batch/jobs.js";
import { route } from "../route.js";
import { BatchJobParams } from "../../shared/schemas/batch.js";

const BatchJobDeletedOut = z.object({ id: z.string(), object: z.literal("batch"), deleted: z.boolean() });

export const handler = route({ params: BatchJobParams, response: BatchJobDeletedOut }, async ({ params, caller }) => {
  await batchJobs.remove(caller, params.job_id);
  return { id: params.job_id, object: "batch", deleted: true };
});
