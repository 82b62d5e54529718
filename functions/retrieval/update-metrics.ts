import { DeploymentParams, UpdateMetricsBody } from "../../shared/schemas/retrieval.js";
import { updateMetrics } from "../../shared/services/retrieval/index.js";
import { route } from "../route.js";

// 200 with a JSON `null` body (our spec; the SDK accepts any JSON).
export const handler = route({ params: DeploymentParams, body: UpdateMetricsBody }, ({ params, body, caller }) => updateMetrics(caller, params.deployment_id, body));
