import { Reply } from "../../shared/http/reply.js";
import { DatasetRecordParams, PropertiesBody } from "../../shared/schemas/observability/datasets.js";
import { replaceProperties } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

export const handler = route({ params: DatasetRecordParams, body: PropertiesBody }, async ({ params, body, caller }) => {
  await replaceProperties(caller, params.dataset_record_id, body.properties);
  return Reply.empty(204);
});
