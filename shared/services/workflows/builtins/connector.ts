/**
 * `platform:connector`: a workflow Task that calls a connector's tool (docs/connectors.md) as the run's
 * user in the run's workspace, with the credentials that apply to them (theirs, the workspace's, the
 * organization's, or `credentials_name`). Parameters: `connector` (id or name), `tool`, `arguments`
 * (an object, default {}), `credentials_name`. The Task's output is the call's result
 * (`{content, metadata}`); a failure fails the Task with `Connector.InvalidRequest` (an unknown connector,
 * credentials or a refused input), `Connector.Timeout` (504) or `Connector.Error` (the server failed).
 */
import { isRecord, type DispatchEvent } from "../../../domain/workflows/program/index.js";
import type { RunRecord } from "../../../domain/workflows/records.js";
import { asApiError } from "../../../domain/errors.js";
import { completeTask, failTask } from "../../../engine/workflow-machines.js";
import { workflowRegistry } from "../../../store/workflows/registry.js";
import { callTool } from "../../connectors/tools.js";


export async function callConnector(run: RunRecord, event: DispatchEvent): Promise<void> {
  const input = event.input;
  const valid = isRecord(input) && typeof input.connector === "string" && typeof input.tool === "string" && (input.arguments === undefined || isRecord(input.arguments)) && (input.credentials_name === undefined || typeof input.credentials_name === "string");
  if (!valid) {
    await failTask(event.token, "Workflow.InvalidInput", `${event.resource} in state ${event.state}: a connector call needs \`connector\` (id or name), \`tool\`, and optionally \`arguments\` (an object) and \`credentials_name\``);
    return;
  }
  const workflow = await workflowRegistry.getWorkflow(run.workspace, run.workflowId);
  if (!workflow) throw new Error(`The workflow ${run.workflowId} of run ${run.runId} is gone`);
  const caller = { organization: workflow.organization, workspace: run.workspace, principal: run.userId ?? `workflow:${run.workflowId}` };
  let result: unknown;
  try {
    result = await callTool(caller, input.connector as string, input.tool as string, (input.arguments as Record<string, unknown> | undefined) ?? {}, { credentialsName: input.credentials_name as string | undefined });
  } catch (error) {
    const known = asApiError(error);
    const name = known.status === 504 ? "Connector.Timeout" : known.status < 500 ? "Connector.InvalidRequest" : "Connector.Error";
    await failTask(event.token, name, known.message);
    return;
  }
  await completeTask(event.token, result);
}
