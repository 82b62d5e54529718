import type { DispatchEvent } from "../../../domain/workflows/program/index.js";
import type { RunRecord } from "../../../domain/workflows/records.js";
import { failTask } from "../../../engine/workflow-machines.js";

export async function childWorkflowBuiltin(_run: RunRecord, event: DispatchEvent): Promise<void> {
  await failTask(event.token, "Workflow.UnknownResource", "platform:child_workflow is not available yet");
}
