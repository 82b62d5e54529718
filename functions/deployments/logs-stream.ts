import { Reply } from "../../shared/http/reply.js";
import { DeploymentNameParams } from "../../shared/schemas/deployments.js";
import { DeploymentLogStreamQuery } from "../../shared/schemas/workflow-streams.js";
import { openDeploymentLogStream } from "../../shared/services/workflows/logs.js";
import { route } from "../route.js";

/** A tail of the deployment's log lines, for up to 14 minutes (resume with Last-Event-ID). */
export const handler = route({ params: DeploymentNameParams, query: DeploymentLogStreamQuery }, async ({ params, query, caller, event, signal }) =>
  Reply.events(await openDeploymentLogStream(caller, params.name, query, event.headers["last-event-id"] ?? undefined, { signal })),
);
