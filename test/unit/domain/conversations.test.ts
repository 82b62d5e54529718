import { describe, expect, it } from "vitest";
import { checkFunctionResults, entriesThrough, entryOf, entryOut, handoffToolName, inputEntries, messagesOf, pendingAfter, type Entry } from "../../../shared/domain/conversations.js";
import { Unprocessable } from "../../../shared/domain/errors.js";

const call = (id: string, name = "lookup"): Entry => entryOf("function.call", { tool_call_id: id, name, arguments: '{"q":"x"}' });
const result = (id: string, text = "found"): Entry => entryOf("function.result", { tool_call_id: id, result: text });

describe("messagesOf", () => {
  it("turns messages into user and assistant messages", () => {
    expect(messagesOf(inputEntries("Hi"))).toEqual([{ role: "user", content: "Hi" }]);
    expect(messagesOf([entryOf("message.output", { role: "assistant", content: "Hello" })])).toEqual([{ role: "assistant", content: "Hello", prefix: false }]);
  });

  it("puts a function call's result right after the assistant message that made it", () => {
    const messages = messagesOf([...inputEntries("Find"), call("c1"), result("c1")]);

    expect(messages).toEqual([
      { role: "user", content: "Find" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"q":"x"}' } }], prefix: false },
      { role: "tool", content: "found", tool_call_id: "c1" },
    ]);
  });

  it("gives a tool execution its call and its result, by the model's call id", () => {
    const execution = { ...entryOf("tool.execution", { name: "echo", arguments: "{}", info: { result: "echoed" } }), callId: "abc123XYZ" };

    expect(messagesOf([execution])).toEqual([
      { role: "assistant", content: "", tool_calls: [{ id: "abc123XYZ", type: "function", function: { name: "echo", arguments: "{}" } }], prefix: false },
      { role: "tool", content: "echoed", tool_call_id: "abc123XYZ", name: "echo" },
    ]);
  });

  it("joins calls of one step into one assistant message, executions' results before the client's", () => {
    const execution = { ...entryOf("tool.execution", { name: "echo", arguments: "{}", info: { result: "e" } }), callId: "t1" };

    const messages = messagesOf([execution, call("c1"), result("c1")]);

    expect(messages.map((m) => m.role)).toEqual(["assistant", "tool", "tool"]);
    expect(messages[0]).toMatchObject({ tool_calls: [{ id: "t1" }, { id: "c1" }] });
  });

  it("leaves tool references out of what the model reads", () => {
    const output = entryOf("message.output", { role: "assistant", content: [{ type: "text", text: "See " }, { type: "tool_reference", tool: "web_search", title: "x" }] });

    expect(messagesOf([output])[0]!.content).toBe("See ");
  });
});

describe("checkFunctionResults", () => {
  it("takes results for the pending calls", () => {
    expect(() => checkFunctionResults(["c1", "c2"], [result("c1"), result("c2")])).not.toThrow();
  });

  it("refuses a result for no pending call, naming where it is", () => {
    expect(() => checkFunctionResults(["c1"], [result("c1"), result("zz")])).toThrow(Unprocessable);
    try {
      checkFunctionResults(["c1"], [result("c1"), result("zz")]);
    } catch (error) {
      expect((error as Unprocessable).detail[0]!.loc).toEqual(["body", "inputs", 1, "tool_call_id"]);
    }
  });

  it("refuses a turn that leaves a call unanswered", () => {
    expect(() => checkFunctionResults(["c1"], inputEntries("Never mind"))).toThrow(/c1/);
  });

  it("takes a call and its result among the inputs themselves", () => {
    expect(() => checkFunctionResults([], [call("c9"), result("c9")])).not.toThrow();
  });
});

describe("the rest", () => {
  it("pendingAfter follows calls and results", () => {
    expect(pendingAfter(["a"], [call("b"), result("a")])).toEqual(["b"]);
  });

  it("entriesThrough cuts the history after the entry named, or finds none", () => {
    const entries = [...inputEntries("a"), ...inputEntries("b")];
    expect(entriesThrough(entries, entries[0]!.id)).toEqual([entries[0]]);
    expect(entriesThrough(entries, "nope")).toBeUndefined();
  });

  it("entryOut drops the model's call id", () => {
    expect(entryOut({ ...call("c"), callId: "x" })).not.toHaveProperty("callId");
  });

  it("handoff tool names are function names made of the agent's name", () => {
    expect(handoffToolName("Billing desk (EU)", "f1d2")).toBe("transfer_to_billing_desk_eu");
    expect(handoffToolName("???", "f1d2d3d4-aaaa")).toBe("transfer_to_f1d2d3d4");
  });
});
