import { publicUrl } from "../../shared/http/public-url.js";
import { ExportDatasetOut } from "../../shared/schemas/observability/dataset-imports.js";
import { DatasetParams } from "../../shared/schemas/observability/datasets.js";
import { exportToJsonl } from "../../shared/services/observability/dataset-imports.js";
import { route } from "../route.js";

/** `{file_url}`: a signed URL on the files download route, to a JSONL File of the dataset's records. */
export const handler = route({ params: DatasetParams, response: ExportDatasetOut }, ({ params, caller, event }) =>
  exportToJsonl(caller, params.dataset_id, (fileId) => publicUrl(event, `/v1/files/${fileId}/download`)),
);
