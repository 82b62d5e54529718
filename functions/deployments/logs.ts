import { DeploymentNameParams } from "../../shared/schemas/deployments.js";
import { DeploymentLogQuery, LogSearchOut } from "../../shared/schemas/workflow-streams.js";
import * as logs from "../../shared/services/workflows/logs.js";
import { route } from "../route.js";

/** The log lines of the deployment's runs (its workers' and the engine's), paged by an opaque cursor. */
export const handler = route({ params: DeploymentNameParams, query: DeploymentLogQuery, response: LogSearchOut }, async ({ params, query, caller }) => logs.deploymentLogs(caller, params.name, query));
