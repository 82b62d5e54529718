import { DatasetImportTaskOut, DatasetTaskParams } from "../../shared/schemas/observability/dataset-imports.js";
import { getTask } from "../../shared/services/observability/dataset-imports.js";
import { route } from "../route.js";

export const handler = route({ params: DatasetTaskParams, response: DatasetImportTaskOut }, ({ params, caller }) => getTask(caller, params.dataset_id, params.task_id));
