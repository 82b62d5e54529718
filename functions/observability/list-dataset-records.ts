import { DatasetParams, RecordListOut, RecordListQuery } from "../../shared/schemas/observability/datasets.js";
import { listRecords } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

export const handler = route({ params: DatasetParams, query: RecordListQuery, response: RecordListOut }, ({ params, query, caller }) => listRecords(caller, params.dataset_id, query));
