import { task } from "../../shared/engine/task.js";
import { applyStatusChange, type StatusChange } from "../../shared/services/workflows/status.js";

/**
 * EventBridge's "Step Functions Execution Status Change" for the workflow machines (locally the Step
 * Functions stand-in's status callback): closes the run it names, once.
 */
export const handler = task(async (event: { detail: StatusChange }) => {
  await applyStatusChange(event.detail);
  return null;
});
