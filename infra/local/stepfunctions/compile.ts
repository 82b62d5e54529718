/**
 * A state machine document made runnable by the library: every Task state bound to a local handler (the
 * library keys them by state name, across every nesting level) and every Distributed Map replaced by a
 * Task of the same name that emulates it. A document the library's validator refuses, or a Task the
 * resolver cannot run locally, throws an Error naming the state.
 */
import { StateMachine, type StateMachineDefinition } from "aws-local-stepfunctions";
import { distributedMapBinding, UNEMULATED_MAP_FIELDS, type MapDeps } from "./distributed-map.js";
import { MAX_TIMER_SECONDS, type Binding, type Compiled, type Json } from "./model.js";
import { validatorCacheDir, validDocuments } from "./valid-documents.js";

/** How a Task state runs locally: its handler, and the state as the library should see it. */
export interface TaskPlan {
  binding: Binding;
  state: Json;
}

/** Plans a Task state, or throws an Error saying why it cannot run locally. */
export type TaskResolver = (stateName: string, state: Json) => TaskPlan;

const DISTRIBUTED_MAP_RESOURCE = "arn:aws:states:::local:distributed-map";
const MAP_FIELDS_KEPT = ["Comment", "InputPath", "ResultSelector", "ResultPath", "OutputPath", "Retry", "Catch", "Next", "End"];

/** The documents the library's validator has accepted, in this process and in this checkout's cache. */
const validated = validDocuments(validatorCacheDir());

export function compile(name: string, document: Json, resolveTask: TaskResolver, deps: MapDeps): Compiled {
  // The document as written must be valid ASL (the library's own validator), before any rewriting.
  validated.check(document, (valid) => new StateMachine(valid as StateMachineDefinition));
  const bindings = new Map<string, Binding>();
  const bind = (stateName: string, target: string, binding: Binding) => {
    // The library keys local handlers by state name across every nesting level.
    const key = `${stateName}\u0000${target}`;
    if (bindings.has(stateName) && (bindings.get(stateName) as Binding & { target?: string }).target !== key) {
      throw new Error(`State machine ${name}: two states are named ${stateName}; the local engine needs unique state names`);
    }
    bindings.set(stateName, Object.assign(binding, { target: key }));
  };

  const rewriteStates = (graph: Json): Json => ({
    ...graph,
    States: Object.fromEntries(Object.entries(graph.States as Json).map(([stateName, state]) => [stateName, rewrite(stateName, state as Json)])),
  });
  const rewrite = (stateName: string, state: Json): Json => {
    if (state.Type === "Task") {
      let plan: TaskPlan;
      try {
        plan = resolveTask(stateName, state);
      } catch (error) {
        throw new Error(`State machine ${name}: ${(error as Error).message}`);
      }
      bind(stateName, JSON.stringify(state), plan.binding);
      return plan.state;
    }
    if (state.Type === "Parallel") return { ...state, Branches: (state.Branches as Json[]).map(rewriteStates) };
    if (state.Type !== "Map") return state;
    const field = state.ItemProcessor ? "ItemProcessor" : "Iterator";
    const processor = rewriteStates(state[field]);
    if (!(processor.ProcessorConfig?.Mode === "DISTRIBUTED" || state.ItemReader)) return { ...state, [field]: processor };
    const unemulated = UNEMULATED_MAP_FIELDS.filter((f) => f in state);
    if (unemulated.length) throw new Error(`State machine ${name}: Map ${stateName} uses ${unemulated.join(", ")}, which the local engine does not emulate`);
    const reader = state.ItemReader as Json | undefined;
    const readerConfig = (reader?.ReaderConfig ?? {}) as Json;
    if (reader && (reader.Resource !== "arn:aws:states:::s3:getObject" || (readerConfig.InputType ?? "JSON") !== "JSON" || "MaxItemsPath" in readerConfig)) {
      throw new Error(`State machine ${name}: Map ${stateName} reads items with ${JSON.stringify(reader)}; locally only s3:getObject of a JSON array is emulated`);
    }
    const { ProcessorConfig: _config, ...inline } = processor;
    const runner = new StateMachine(inline as unknown as StateMachineDefinition, { validationOptions: { noValidate: true } });
    bind(stateName, `map:${stateName}`, distributedMapBinding(stateName, state, runner, deps));
    // The Map becomes a Task of the same name with the same input/output processing, Retry, Catch and transition.
    const kept = Object.fromEntries(MAP_FIELDS_KEPT.filter((f) => f in state).map((f) => [f, state[f]]));
    return { Type: "Task", Resource: DISTRIBUTED_MAP_RESOURCE, TimeoutSeconds: MAX_TIMER_SECONDS, ...kept };
  };

  const { TimeoutSeconds, ...rewritten } = rewriteStates(document);
  return {
    name,
    // The execution timeout is kept here instead: the library's own timer would hold the process open.
    runner: new StateMachine(rewritten as unknown as StateMachineDefinition, { validationOptions: { noValidate: true } }),
    timeoutSeconds: typeof TimeoutSeconds === "number" ? TimeoutSeconds : undefined,
    bindings,
  };
}
