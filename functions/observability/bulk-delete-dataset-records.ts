import { Reply } from "../../shared/http/reply.js";
import { BulkDeleteBody } from "../../shared/schemas/observability/datasets.js";
import { bulkDeleteRecords } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

/** All or nothing: an unknown id is a 404 naming it, and nothing is deleted. */
export const handler = route({ body: BulkDeleteBody }, async ({ body, caller }) => {
  await bulkDeleteRecords(caller, body.dataset_record_ids);
  return Reply.empty(204);
});
