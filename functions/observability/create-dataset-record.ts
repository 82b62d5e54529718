import { Reply } from "../../shared/http/reply.js";
import { CreateRecordBody, DatasetParams, DatasetRecordOut } from "../../shared/schemas/observability/datasets.js";
import { createRecord } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

// 201: the SDK rejects a 200 here.
export const handler = route({ params: DatasetParams, body: CreateRecordBody, returns: DatasetRecordOut }, async ({ params, body, caller }) =>
  Reply.json(201, DatasetRecordOut.parse(await createRecord(caller, params.dataset_id, body))),
);
