import { DatasetRecordOut, DatasetRecordParams } from "../../shared/schemas/observability/datasets.js";
import { getRecord } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

export const handler = route({ params: DatasetRecordParams, response: DatasetRecordOut }, ({ params, caller }) => getRecord(caller, params.dataset_record_id));
