import * as batchJobs from "../../shared/services/batch/jobs.js";
import { route } from "../route.js";
import { BatchJobOut, BatchJobParams } from "../../shared/schemas/batch.js";

export const handler = route({ params: BatchJobParams, response: BatchJobOut }, async ({ params, caller }) =>
  batchJobs.toBatchJobOut(await batchJobs.cancel(caller, params.job_id)),
);
