import { describe, expect, it } from "vitest";
import { stateMachines } from "../../../functions/engine.js";
import { datasetImportDefinition } from "../../../shared/engine/dataset-import-machine.js";

const definition = datasetImportDefinition({ run: "arn:run", recordFailure: "arn:failure" });

describe("the dataset import state machine", () => {
  it("runs Run again while it says DatasetImportIncomplete, and retries Lambda's own failures", () => {
    const run = definition.States.Run;
    expect(run.Resource).toBe("arn:run");
    expect(run.Retry.map((r) => r.ErrorEquals)).toEqual([["DatasetImportIncomplete"], expect.arrayContaining(["Lambda.ServiceException", "Lambda.TooManyRequestsException"])]);
    expect(run.End).toBe(true);
  });

  it("catches any other error into RecordFailure with the error at $.failure, then fails", () => {
    expect(definition.States.Run.Catch).toEqual([{ ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: "RecordFailure" }]);
    expect(definition.States.RecordFailure).toMatchObject({ Resource: "arn:failure", Next: "Failed" });
    expect(definition.States.Failed.Type).toBe("Fail");
  });

  it("is the engine table's datasetImport row, its tasks the two functions", () => {
    expect(Object.keys(stateMachines.datasetImport.tasks).toSorted()).toEqual(["recordFailure", "run"]);
    expect(stateMachines.datasetImport.definition({ run: "arn:run", recordFailure: "arn:failure" })).toEqual(definition);
  });
});
