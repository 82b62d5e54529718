import * as batchJobs from "../../shared/services/batch/jobs.js";
import { route } from "../route.js";
import { BatchJobOut, CreateBatchJobRequest } from "../../shared/schemas/batch.js";

/** Every request line is checked here, so a bad file is refused now rather than failing later. */
export const handler = route({ body: CreateBatchJobRequest, response: BatchJobOut }, async ({ body, caller }) =>
  batchJobs.toBatchJobOut(await batchJobs.create(caller, body)),
);
