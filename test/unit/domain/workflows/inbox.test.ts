import { describe, expect, it } from "vitest";
import { historyEntries, renderHistory, resetPoints } from "../../../../shared/domain/workflows/history.js";
import { decodeInput, parsePath, readPath } from "../../../../shared/domain/workflows/inbox.js";
import type { InboxMessage } from "../../../../shared/domain/workflows/inbox.js";
import { eventOf, jsonPayload } from "../../../../shared/domain/workflows/events.js";
import { aRun } from "../../../support/workflow-builders.js";

describe("decodeInput", () => {
  it("takes an object as is, absent or null as {}, and base64 JSON of a NetworkEncodedInput", () => {
    expect(decodeInput({ a: 1 })).toEqual({ value: { a: 1 } });
    expect(decodeInput(undefined)).toEqual({ value: {} });
    expect(decodeInput(null)).toEqual({ value: {} });
    expect(decodeInput({ b64payload: Buffer.from('{"by":"ada"}').toString("base64"), encoding_options: [], empty: false })).toEqual({ value: { by: "ada" } });
    expect(decodeInput({ b64payload: "", empty: true })).toEqual({ value: {} });
  });

  it("refuses arrays, encoded options and payloads that are not base64 of an object", () => {
    expect(decodeInput([1])).toMatchObject({ issue: { loc: ["body", "input"], type: "dict_type" } });
    expect(decodeInput({ b64payload: "e30=", encoding_options: ["compressed"] })).toMatchObject({ issue: { loc: ["body", "input", "encoding_options"] } });
    expect(decodeInput({ b64payload: Buffer.from("[1]").toString("base64") })).toMatchObject({ issue: { loc: ["body", "input", "b64payload"] } });
  });
});

describe("readPath", () => {
  const state = { a: { b: [10, { c: "deep" }] }, "odd key": 1 };

  it("reads reference paths: $, dotted names, indexes and bracketed names", () => {
    expect(readPath(state, "$")).toBe(state);
    expect(readPath(state, "$.a.b[1].c")).toBe("deep");
    expect(readPath(state, "$['odd key']")).toBe(1);
    expect(readPath(state, "$.a.missing.x")).toBeUndefined();
    expect(readPath(null, "$.a")).toBeUndefined();
  });

  it("is not a JSONPath query language: filters, wildcards and recursion are not paths", () => {
    for (const path of ["a.b", "$..a", "$.a[*]", "$.a[?(@.b)]", "$.", "$[-1]"]) expect(parsePath(path), path).toBeUndefined();
  });
});

describe("historyEntries", () => {
  const run = aRun({ runId: "r1", startTime: "2026-01-01T00:00:00.000Z" });
  const at = (ms: number) => Date.parse(run.startTime) + ms;
  const message = (seq: number, overrides: Partial<InboxMessage>): InboxMessage => ({
    workspace: run.workspace,
    executionId: run.executionId,
    seq,
    kind: "signal",
    id: `m${seq}`,
    name: "go",
    input: { seq },
    status: "PENDING",
    receivedAtMs: at(seq * 10),
    runId: "r1",
    ...overrides,
  });

  it("merges events, steps and the inbox in time order; only steps are reset points", () => {
    const started = eventOf(run, "WORKFLOW_EXECUTION_STARTED", { task_id: "r1", input: jsonPayload({ x: 1 }) }, { id: "e1", nowMs: at(0) });
    const entries = historyEntries(
      "r1",
      [started, { ...started, workflow_run_id: "other" }],
      [{ workspace: run.workspace, runId: "r1", id: "s", state: "Wait", input: {}, atMs: at(5) }],
      [
        message(1, {}),
        message(2, { kind: "update", status: "COMPLETED", deliveredRunId: "r1", deliveredAtMs: at(25), completedAtMs: at(30), result: { ok: true } }),
        message(3, { runId: "old", deliveredRunId: "old" }),
      ],
    );

    expect(entries.map((e) => e.type)).toEqual([
      "WORKFLOW_EXECUTION_STARTED",
      "WORKFLOW_TASK_COMPLETED",
      "WORKFLOW_EXECUTION_SIGNALED",
      "WORKFLOW_EXECUTION_UPDATE_ADMITTED",
      "WORKFLOW_EXECUTION_UPDATE_ACCEPTED",
      "WORKFLOW_EXECUTION_UPDATE_COMPLETED",
    ]);
    expect(resetPoints(entries)).toEqual([2]);
    const decoded = renderHistory(entries, true).events as Record<string, any>[];
    expect(decoded[0]).toEqual({ eventId: "1", eventTime: "2026-01-01T00:00:00.000Z", eventType: "EVENT_TYPE_WORKFLOW_EXECUTION_STARTED", workflowExecutionStartedEventAttributes: { event_id: "e1", task_id: "r1", input: { x: 1 } } });
    expect(decoded[5]!.workflowExecutionUpdateCompletedEventAttributes).toEqual({ update_id: "m2", update_name: "go", result: { ok: true } });
    expect((renderHistory(entries, false).events[2] as Record<string, any>).workflowExecutionSignaledEventAttributes.input).toEqual({ metadata: { encoding: "anNvbi9wbGFpbg==" }, data: Buffer.from('{"seq":1}').toString("base64") });
  });
});
