import * as z from "zod";
import * as batchJobs from "../../shared/services/batch/jobs.js";
import { route } from "../route.js";
import { BatchJobListQuery, BatchJobOut } from "../../shared/schemas/batch.js";

const BatchJobListOut = z.object({ object: z.literal("list"), data: z.array(BatchJobOut), total: z.number().int() });

export const handler = route({ query: BatchJobListQuery, response: BatchJobListOut }, async ({ query, caller }) => {
  const { items, total } = await batchJobs.list(caller, query);
  return { object: "list", data: items.map((job) => batchJobs.toBatchJobOut(job)), total };
});
