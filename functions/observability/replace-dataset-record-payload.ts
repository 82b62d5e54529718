import { Reply } from "../../shared/http/reply.js";
import { DatasetRecordParams, PayloadBody } from "../../shared/schemas/observability/datasets.js";
import { replacePayload } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

export const handler = route({ params: DatasetRecordParams, body: PayloadBody }, async ({ params, body, caller }) => {
  await replacePayload(caller, params.dataset_record_id, body.payload);
  return Reply.empty(204);
});
