/**
 * A Distributed Map, which the library ignores silently, emulated as a Map Run does it: the ItemReader's
 * S3 JSON object read from the local S3, ItemSelector evaluated per item with `$$.Map.Item.Value`/`Index`,
 * the ItemProcessor run once per item with MaxConcurrency, and a failed item failing the Map
 * (States.ExceedToleratedFailureThreshold: the tolerated failure is 0).
 */
import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { StateMachine, type StateMachineDefinition } from "aws-local-stepfunctions";
import { describeFailure, ExecutionEnded, StatesError, type Binding, type Execution, type Json } from "./model.js";

/** A Distributed Map's MaxConcurrency 0 means "as many as Step Functions allows" (10,000); in-process, fewer. */
const DEFAULT_MAP_CONCURRENCY = 1000;
/** Distributed Map fields this stand-in does not emulate: refused when a machine is compiled, never ignored. */
export const UNEMULATED_MAP_FIELDS = [
  "ItemBatcher",
  "ResultWriter",
  "ToleratedFailurePercentage",
  "ToleratedFailurePercentagePath",
  "ToleratedFailureCount",
  "ToleratedFailureCountPath",
  "MaxConcurrencyPath",
];

export interface MapDeps {
  s3: S3Client;
  log: (message: string) => void;
}

/** The ItemReader + ItemSelector + ItemProcessor of a Distributed Map, as a local handler. */
export function distributedMapBinding(stateName: string, state: Json, processor: StateMachine, deps: MapDeps): Binding {
  const selector = state.ItemSelector ?? state.Parameters;
  return async (execution, input) => {
    if (execution.ended.signal.aborted) throw new ExecutionEnded();
    const items = await readItems(state, input, execution, deps.s3);
    const handlers = Object.fromEntries([...execution.machine.bindings].map(([name, binding]) => [name, (value: unknown) => binding(execution, value, { mapRun: true }) as Promise<any>]));
    const results: unknown[] = new Array(items.length);
    const running = new Set<() => void>();
    const abortRunning = () => running.forEach((abort) => abort());
    let next = 0;
    let failed: { index: number; error: unknown } | undefined;
    const stopped = () => Boolean(failed) || execution.ended.signal.aborted;
    const worker = async () => {
      while (!stopped() && next < items.length) {
        const index = next++;
        try {
          const value = items[index];
          const itemInput = selector ? await evaluate(selector, input, { ...execution.context, Map: { Item: { Index: index, Value: value } } }) : value;
          if (stopped()) return;
          const child = processor.run(itemInput as never, { overrides: { taskResourceLocalHandlers: handlers }, context: { StateMachine: execution.context.StateMachine } });
          running.add(child.abort);
          try {
            results[index] = await child.result;
          } finally {
            running.delete(child.abort);
          }
        } catch (error) {
          if (!failed) {
            failed = { index, error };
            abortRunning();
          }
        }
      }
    };
    execution.ended.signal.addEventListener("abort", abortRunning);
    try {
      const concurrency = Math.min(Number(state.MaxConcurrency) || DEFAULT_MAP_CONCURRENCY, items.length);
      await Promise.all(Array.from({ length: concurrency }, worker));
    } finally {
      execution.ended.signal.removeEventListener("abort", abortRunning);
    }
    if (execution.ended.signal.aborted) throw new ExecutionEnded();
    if (failed) {
      const { error, cause } = describeFailure(failed.error);
      deps.log(`local step functions: ${execution.name} ${stateName} item ${failed.index} failed: ${error}: ${cause}`);
      // As a Map Run reports it: the item's own error is in its child execution, not the Map's.
      throw new StatesError("States.ExceedToleratedFailureThreshold", "The specified tolerated failure threshold was exceeded");
    }
    return results;
  };
}

async function readItems(state: Json, input: unknown, execution: Execution, s3: S3Client): Promise<unknown[]> {
  const reader = state.ItemReader as Json | undefined;
  if (!reader) {
    const items = state.ItemsPath ? ((await evaluate({ "items.$": state.ItemsPath }, input, execution.context)) as Json).items : input;
    if (!Array.isArray(items)) throw new StatesError("States.Runtime", "Input of Map state must be an array or ItemsPath property must point to an array");
    return items;
  }
  const where = (await evaluate(reader.Parameters ?? {}, input, execution.context)) as { Bucket?: string; Key?: string; VersionId?: string };
  try {
    const object = await s3.send(new GetObjectCommand({ Bucket: where.Bucket, Key: where.Key, VersionId: where.VersionId }));
    const items: unknown = JSON.parse(await object.Body!.transformToString());
    if (!Array.isArray(items)) throw new Error("the object is not a JSON array");
    const max = Number(reader.ReaderConfig?.MaxItems ?? 0);
    return max > 0 ? items.slice(0, max) : items;
  } catch (error) {
    throw new StatesError("States.ItemReaderFailed", `Reading s3://${where.Bucket}/${where.Key} failed: ${(error as Error).message}`);
  }
}

/** Evaluates a payload template (Parameters, ItemSelector) with the library's own JSONPath, against `input` and `$$`. */
async function evaluate(template: unknown, input: unknown, context: Json): Promise<unknown> {
  const pass = new StateMachine({ StartAt: "Template", States: { Template: { Type: "Pass", Parameters: template, End: true } } } as unknown as StateMachineDefinition, {
    validationOptions: { noValidate: true },
  });
  return pass.run(input as never, { context }).result;
}
