import * as workflows from "../../shared/services/workflows/workflows.js";
import { RegistrationGetOut, RegistrationGetQuery, WorkflowRegistrationParams } from "../../shared/schemas/workflows.js";
import { route } from "../route.js";

/** `workflow_version` is the deprecated name of the same registration, sent alongside it. */
export const handler = route({ params: WorkflowRegistrationParams, query: RegistrationGetQuery, response: RegistrationGetOut }, async ({ params, query, caller }) => {
  const registration = await workflows.getRegistrationDetail(caller, params.workflow_registration_id, query.with_workflow);
  return { workflow_registration: registration, workflow_version: registration };
});
