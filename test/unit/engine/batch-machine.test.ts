import { describe, expect, it } from "vitest";
import { batchDefinition } from "../../../shared/engine/batch-machine.js";

const definition = batchDefinition({ start: "start", runChunk: "run", finish: "finish", recordFailure: "fail" });
const runChunk = definition.States.Requests.ItemProcessor.States.RunChunk;

describe("the batch state machine", () => {
  it("runs a chunk again when it stopped early to save its progress, before any other retry applies", () => {
    expect(runChunk.Retry[0]).toMatchObject({ ErrorEquals: ["BatchChunkIncomplete"], MaxAttempts: 20 });
  });

  it("sends every failure of Start, the Map and Finish to RecordFailure", () => {
    for (const name of ["Start", "Requests", "Finish"] as const) {
      expect(definition.States[name].Catch).toEqual([{ ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: "RecordFailure" }]);
    }
  });

  it("reads the chunk manifest from S3 in a distributed map", () => {
    expect(definition.States.Requests.ItemProcessor.ProcessorConfig.Mode).toBe("DISTRIBUTED");
    expect(definition.States.Requests.ItemReader.Parameters).toEqual({ "Bucket.$": "$.bucket", "Key.$": "$.manifestKey" });
  });
});
