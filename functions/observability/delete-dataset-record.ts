import { Reply } from "../../shared/http/reply.js";
import { DatasetRecordParams } from "../../shared/schemas/observability/datasets.js";
import { deleteRecord } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

export const handler = route({ params: DatasetRecordParams }, async ({ params, caller }) => {
  await deleteRecord(caller, params.dataset_record_id);
  return Reply.empty(204);
});
