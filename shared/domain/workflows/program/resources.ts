/**
 * What a Task may name as its Resource: an activity the deployment's workers run, or a built-in the platform
 * runs. Anything else (an ARN, `http:invoke`, an `aws-sdk:` integration) would reach outside the platform.
 */
export const PLATFORM_BUILTINS = [
  "model",
  "sleep_until",
  "emit_event",
  "publish_state",
  "await_signal",
  "await_update",
  "complete_update",
  "connector",
  "continue_as_new",
  "child_workflow",
] as const;
export type PlatformBuiltin = (typeof PLATFORM_BUILTINS)[number];

/**
 * The Parameters each built-in needs, checked at registration: every group lists keys of which at least one
 * must be in the Task's Parameters, as a literal (`model`) or a path (`model.$`). A built-in with groups
 * needs Parameters: its whole input would be a guess.
 */
export const BUILTIN_PARAMETERS: Record<PlatformBuiltin, { requires: readonly (readonly string[])[]; means: string }> = {
  model: { requires: [["model"], ["messages", "input"]], means: "a model call: `model`, and `messages` (chat) or `input` (conversation entries)" },
  sleep_until: { requires: [["until", "seconds"]], means: "a durable timer: `until` (an ISO 8601 time) or `seconds`" },
  emit_event: { requires: [["type"]], means: "a custom workflow event: its `type`, with any other fields as its attributes" },
  publish_state: { requires: [], means: "publishes the Task's input (its Parameters, or the whole state input) as the run's queryable state" },
  await_signal: { requires: [["name"]], means: "waits for the next signal of that `name` in the execution's inbox and outputs its input" },
  await_update: { requires: [["name"]], means: "waits for the next update of that `name` (`*`: of any name) and outputs `{update_id, name, input}`" },
  complete_update: { requires: [["update_id"], ["result", "error"]], means: "answers an update the run took: `update_id`, and `result` or `error` `{message, type?}`" },
  connector: { requires: [["connector"], ["tool"]], means: "a connector's tool call: `connector` (id or name), `tool`, `arguments`, `credentials_name` (docs/connectors.md)" },
  continue_as_new: { requires: [], means: "ends the run, once it succeeds, as CONTINUED_AS_NEW: the execution goes on as a new run with the Task's input" },
  child_workflow: { requires: [["workflow", "workflow_identifier"]], means: "starts a child execution of `workflow` with `input` and waits for its result" },
};

export const ACTIVITY_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export type TaskResource = { kind: "activity"; name: string } | { kind: "platform"; builtin: PlatformBuiltin };

export type ResourceRefusal = { rule: string; why: string };

export function parseResource(resource: unknown): TaskResource | ResourceRefusal {
  if (typeof resource !== "string") return { rule: "structure", why: "Resource must be a string" };
  const shown = resource.length > 120 ? `${resource.slice(0, 120)}…` : resource;
  if (/^arn:/i.test(resource)) return { rule: "arn", why: `Resource ${shown} is not allowed` };
  if (resource.startsWith("activity:")) {
    const name = resource.slice("activity:".length);
    return ACTIVITY_NAME.test(name) ? { kind: "activity", name } : { rule: "resource", why: `activity name '${name}' must match ${ACTIVITY_NAME.source}` };
  }
  if (resource.startsWith("platform:")) {
    const builtin = resource.slice("platform:".length);
    return isBuiltin(builtin) ? { kind: "platform", builtin } : { rule: "unknown-builtin", why: `platform:${builtin} is not a built-in (known: ${PLATFORM_BUILTINS.join(", ")})` };
  }
  return { rule: "resource", why: `Resource ${shown} is not allowed` };
}

function isBuiltin(name: string): name is PlatformBuiltin {
  return (PLATFORM_BUILTINS as readonly string[]).includes(name);
}
