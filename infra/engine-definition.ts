import type { StateMachineRow } from "../functions/engine.js";

/**
 * The document a state machine runs, in the cloud and locally: the row's definition with its task
 * resources, plus the execution timeout. CDK's `timeout` prop only applies to chainable definitions, so
 * the timeout is written into the document itself (TimeoutSeconds), where both runners read it.
 */
export function deployedDefinition(row: StateMachineRow, resources: Record<string, string>): Record<string, unknown> {
  return { ...(row.definition(resources) as Record<string, unknown>), TimeoutSeconds: row.timeoutHours * 3600 };
}
