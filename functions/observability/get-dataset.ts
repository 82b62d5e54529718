import { DatasetOut, DatasetParams } from "../../shared/schemas/observability/datasets.js";
import { getDataset } from "../../shared/services/observability/datasets.js";
import { route } from "../route.js";

export const handler = route({ params: DatasetParams, response: DatasetOut }, ({ params, caller }) => getDataset(caller, params.dataset_id));
