import { describe, expect, it } from "vitest";
import { importFailureMessage, parseImportLine, summary, toTaskOut, type DatasetImportTask } from "../../../shared/domain/observability/dataset-imports.js";

describe("parseImportLine", () => {
  it("takes {payload, properties} and ignores the export's other keys", () => {
    expect(parseImportLine(JSON.stringify({ id: "x", source: "DIRECT_INPUT", payload: { a: 1 }, properties: { b: 2 } }))).toEqual({ record: { payload: { a: 1 }, properties: { b: 2 } } });
  });

  it("takes a bare conversation as the payload itself, with no properties", () => {
    const line = { messages: [{ role: "user", content: "hi" }] };
    expect(parseImportLine(JSON.stringify(line))).toEqual({ record: { payload: line, properties: {} } });
  });

  it("skips blank lines and names the problem of a bad one", () => {
    expect(parseImportLine("   ")).toEqual({ blank: true });
    expect(parseImportLine("{oops")).toEqual({ reason: expect.stringMatching(/^not JSON/) });
    expect(parseImportLine("[1]")).toEqual({ reason: "not a JSON object" });
    expect(parseImportLine('{"payload": 3}')).toEqual({ reason: "payload must be a JSON object" });
    expect(parseImportLine('{"payload": {}, "properties": []}')).toEqual({ reason: "properties must be a JSON object" });
    expect(parseImportLine('{"other": 1}')).toEqual({ reason: expect.stringMatching(/^no payload/) });
    expect(parseImportLine('{"payload": {"messages": [{"role": "robot", "content": "x"}]}}')).toEqual({ reason: expect.stringContaining("role must be one of") });
  });
});

describe("a task's message", () => {
  it("sums up what was imported and the first failures", () => {
    expect(summary({ imported: 1, failed: 0, failures: [] })).toBe("Imported 1 record.");
    const failures = [1, 2, 3, 4].map((line) => ({ line, id: null, reason: "not a JSON object" }));
    expect(summary({ imported: 2, failed: 5, failures })).toBe("Imported 2 records; 5 failed (line 1: not a JSON object; line 2: not a JSON object; line 3: not a JSON object; …).");
  });

  it("shows our own failure's message, and nothing of an internal one", () => {
    const ours = { Error: "DatasetImportError", Cause: JSON.stringify({ errorType: "DatasetImportError", errorMessage: "The dataset was deleted during the import" }) };
    expect(importFailureMessage(ours, { imported: 3 })).toBe("The dataset was deleted during the import. 3 records were imported before it stopped (each whole).");
    const internal = { Error: "TypeError", Cause: JSON.stringify({ errorType: "TypeError", errorMessage: "secret at /var/task" }) };
    expect(importFailureMessage(internal, { imported: 0 })).not.toContain("secret");
  });

  it("answers progress by bytes of a file, 100 once completed", () => {
    const task = { source: "FILE", bytes: 200, cursor: 50, status: "RUNNING", failures: [] } as unknown as DatasetImportTask;
    expect(toTaskOut(task).progress).toBe(25);
    expect(toTaskOut({ ...task, status: "COMPLETED" }).progress).toBe(100);
    expect(toTaskOut({ ...task, source: "DATASET", bytes: undefined, total: 0 }).progress).toBe(100);
  });
});
