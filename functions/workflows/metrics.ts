import { metrics } from "../../shared/services/workflows/metrics.js";
import { MetricsOut, MetricsQuery, WorkflowNameParams } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

export const handler = route({ params: WorkflowNameParams, query: MetricsQuery, response: MetricsOut }, ({ params, query, caller }) => metrics(caller, params.workflow_name, query));
