import { DatasetOut, DatasetParams, UpdateDatasetBody } from "../../shared/schemas/observability/datasets.js";
import { updateDataset } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

export const handler = route({ params: DatasetParams, body: UpdateDatasetBody, response: DatasetOut }, ({ params, body, caller }) => updateDataset(caller, params.dataset_id, body));
