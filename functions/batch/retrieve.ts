import * as batchJobs from "../../shared/services/batch/jobs.js";
import { route } from "../route.js";
import { BatchJobOut, BatchJobParams, BatchJobQuery } from "../../shared/schemas/batch.js";

export const handler = route({ params: BatchJobParams, query: BatchJobQuery, response: BatchJobOut }, async ({ params, query, caller }) => {
  const job = await batchJobs.get(caller, params.job_id);
  return batchJobs.toBatchJobOut(job, query.inline ? await batchJobs.outputsOf(job) : null);
});
