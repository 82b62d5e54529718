import { TaskListOut, TaskListQuery } from "../../shared/schemas/observability/dataset-imports.js";
import { DatasetParams } from "../../shared/schemas/observability/datasets.js";
import { listTasks } from "../../shared/services/observability/dataset-imports.js";
import { route } from "../route.js";

export const handler = route({ params: DatasetParams, query: TaskListQuery, response: TaskListOut }, ({ params, query, caller }) => listTasks(caller, params.dataset_id, query));
