/**
 * `platform:connector`: a workflow Task that calls a connector's tool (docs/connectors.md) with the rights
 * of whoever **registered the program** (decision 0042), never of whoever started the run: the program
 * chose the connector, tool and arguments, so only its author's connectors and credentials (theirs, their
 * workspace's, their organization's, or `credentials_name` among those) may be used, and only while the
 * registrant still holds `connectors:read` in the run's workspace. Parameters: `connector` (id or name),
 * `tool`, `arguments` (an object, default {}), `credentials_name`. The Task's output is the call's result
 * (`{content, metadata}`); a failure fails the Task with `Connector.InvalidRequest` (an unknown connector,
 * credentials or a refused input), `Connector.Forbidden` (no registrant on record, or the registrant lost
 * access), `Connector.Timeout` (504) or `Connector.Error` (the server failed).
 */
import { isRecord, type DispatchEvent } from "../../../domain/workflows/program/index.js";
import type { RunRecord } from "../../../domain/workflows/records.js";
import { asApiError } from "../../../domain/errors.js";
import { completeTask, failTask } from "../../../engine/workflow-machines.js";
import { workflowRegistry } from "../../../store/workflows/registry.js";
import { callTool } from "../../connectors/tools.js";
import { resolvePrincipal } from "../../identity/callers.js";
import { permits } from "../../../domain/identity/permissions.js";
import type { Registrant } from "../../../domain/workflows/records.js";

/** The run's registrant, else its registration's (a run started before runs recorded it). */
async function registrantOfRun(run: RunRecord): Promise<Registrant | undefined> {
  if (run.registeredBy) return run.registeredBy;
  return (await workflowRegistry.getRegistration(run.workspace, run.registrationId))?.registeredBy ?? undefined;
}


export async function callConnector(run: RunRecord, event: DispatchEvent): Promise<void> {
  const input = event.input;
  const valid = isRecord(input) && typeof input.connector === "string" && typeof input.tool === "string" && (input.arguments === undefined || isRecord(input.arguments)) && (input.credentials_name === undefined || typeof input.credentials_name === "string");
  if (!valid) {
    await failTask(event.token, "Workflow.InvalidInput", `${event.resource} in state ${event.state}: a connector call needs \`connector\` (id or name), \`tool\`, and optionally \`arguments\` (an object) and \`credentials_name\``);
    return;
  }
  const workflow = await workflowRegistry.getWorkflow(run.workspace, run.workflowId);
  if (!workflow) throw new Error(`The workflow ${run.workflowId} of run ${run.runId} is gone`);
  const registrant = await registrantOfRun(run);
  if (!registrant) {
    await failTask(event.token, "Connector.Forbidden", `${event.resource} in state ${event.state}: this program was registered before registrants were recorded, so it has no rights to use connectors; register it again (its deployment's worker does so at start)`);
    return;
  }
  const caller = await resolvePrincipal({ organization: workflow.organization, workspace: run.workspace, ...registrant });
  if (!caller || !permits(caller, "connectors:read")) {
    await failTask(event.token, "Connector.Forbidden", `${event.resource} in state ${event.state}: the program's registrant (${registrant.principalType} ${registrant.principal}) may no longer use connectors in this workspace`);
    return;
  }
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
