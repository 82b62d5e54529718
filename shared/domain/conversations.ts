import { randomBytes } from "node:crypto";
import type { AgentTool, CompletionArgs } from "../schemas/agent.js";
import type { ConversationInputs, InputEntry } from "../schemas/conversation.js";
import type { GuardrailConfig } from "../schemas/guardrails.js";
import type { Message, ToolCall } from "../schemas/inference.js";
import { Unprocessable } from "./errors.js";

/** The records of a conversation (docs/conversations.md, decision 0070): its head and its entries in append order. */

/** What a conversation started from a model fixes (a ModelConversation). */
export interface ModelSetup {
  model: string;
  instructions: string | null;
  tools: AgentTool[];
  completion_args: CompletionArgs;
  guardrails: GuardrailConfig[] | null;
}

export interface ConversationHead {
  id: string;
  workspace: string;
  organization: string;
  ownerId: string;
  createdAt: string;
  updatedAt: string;
  name: string | null;
  description: string | null;
  metadata: Record<string, unknown> | null;
  /** Set on a conversation with a model; an agent's conversation has `agentId` instead. */
  setup?: ModelSetup;
  agentId?: string;
  /** The version or alias the conversation was started (or restarted) with; null: the agent's current version. */
  agentVersion?: string | number | null;
  /** The agent answering now: the started one until a handoff moves the conversation to another. */
  activeAgentId?: string;
  /** How many entries the conversation holds: the next entry's sequence number. */
  entryCount: number;
  /** Function calls returned to the client and not answered yet (their `tool_call_id`s). */
  pendingCalls: string[];
}

export type EntryType = "message.input" | "message.output" | "function.call" | "function.result" | "tool.execution" | "agent.handoff";

/** An entry as it is answered, plus `callId`: the model's tool call id of an execution or handoff, never answered. */
export interface Entry {
  object: "entry";
  type: EntryType;
  id: string;
  created_at: string;
  completed_at: string | null;
  callId?: string;
  [field: string]: unknown;
}

const PREFIX: Record<EntryType, string> = {
  "message.input": "msg",
  "message.output": "msg",
  "function.call": "fc",
  "function.result": "fr",
  "tool.execution": "tool_exec",
  "agent.handoff": "handoff",
};

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
export const newConversationId = () => `conv_${hex(16)}`;
export const newEntryId = (type: EntryType) => `${PREFIX[type]}_${hex(16)}`;
/** A tool call id as Mistral's models take them: nine letters and digits. */
export const newToolCallId = () => randomBytes(9).toString("base64url").replace(/[^A-Za-z0-9]/g, "0").slice(0, 9);

export function entryOf(type: EntryType, fields: Record<string, unknown>, at = new Date().toISOString()): Entry {
  return { object: "entry", type, id: newEntryId(type), created_at: at, completed_at: at, ...fields };
}

/** The entry as the API answers it: without what only the platform reads. */
export function entryOut(entry: Entry): Record<string, unknown> {
  const { callId: _callId, ...out } = entry;
  return out;
}

/** The request's inputs as entries of the conversation, with ids and times where the client gave none. */
export function inputEntries(inputs: ConversationInputs, at = new Date().toISOString()): Entry[] {
  const list: InputEntry[] = typeof inputs === "string" ? [{ type: "message.input", role: "user", content: inputs, prefix: false }] : inputs;
  return list.map((input) => {
    const { object: _object, id, created_at, completed_at, ...fields } = input;
    const entry = entryOf(input.type, fields, at);
    return { ...entry, id: id ?? entry.id, created_at: created_at ?? at, completed_at: completed_at ?? at };
  });
}

/**
 * Function results must answer a function call waiting for one (the conversation's pending calls, or a call among the
 * inputs before it), each once, and every call must be answered before the conversation goes on: a model cannot
 * continue after a call it never saw answered.
 */
export function checkFunctionResults(pending: readonly string[], inputs: readonly Entry[]): void {
  const issues: { loc: (string | number)[]; msg: string; type: string }[] = [];
  const open = new Set(pending);
  inputs.forEach((entry, index) => {
    if (entry.type === "function.call") open.add(String(entry.tool_call_id));
    if (entry.type !== "function.result") return;
    const id = String(entry.tool_call_id);
    if (!open.delete(id)) {
      issues.push({ loc: ["body", "inputs", index, "tool_call_id"], msg: `No function call '${id}' waits for a result in this conversation${open.size ? ` (waiting: ${[...open].join(", ")})` : ""}`, type: "value_error" });
    }
  });
  if (open.size && !issues.length) {
    issues.push({ loc: ["body", "inputs"], msg: `The conversation waits for the results of function calls ${[...open].join(", ")}: send a function.result entry for each`, type: "value_error" });
  }
  if (issues.length) throw new Unprocessable(issues);
}

/** The calls still waiting after `entries` were appended to a conversation waiting for `pending`. */
export function pendingAfter(pending: readonly string[], entries: readonly Entry[]): string[] {
  const open = new Set(pending);
  for (const entry of entries) {
    if (entry.type === "function.call") open.add(String(entry.tool_call_id));
    if (entry.type === "function.result") open.delete(String(entry.tool_call_id));
  }
  return [...open];
}

const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((c) => (c && typeof c === "object" && typeof (c as { text?: unknown }).text === "string" ? (c as { text: string }).text : "")).join("") : "";

/** Message content the chat route takes: text and the chunks a model reads; references to tools are not for the model. */
function contentFor(content: unknown): string | { type: string; [key: string]: unknown }[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const chunks = content.filter((c) => c && typeof c === "object" && (c as { type?: unknown }).type !== "tool_reference" && (c as { type?: unknown }).type !== "thinking");
  return chunks.length === content.length ? (content as { type: string }[]) : textOf(chunks);
}

const argumentsText = (args: unknown): string => (typeof args === "string" ? args : JSON.stringify(args ?? {}));

/** The result a tool execution gave the model, as the entry records it. */
export const executionResult = (entry: Entry): string => {
  const info = (entry.info ?? {}) as Record<string, unknown>;
  return typeof info.result === "string" ? info.result : JSON.stringify(info);
};

/** The name the model calls a handoff by: one function per agent it may hand over to. */
export const handoffToolName = (agentName: string, agentId: string): string => {
  const slug = agentName.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "").slice(0, 40);
  return `transfer_to_${slug || agentId.slice(0, 8)}`;
};

/**
 * The chat messages a conversation's entries stand for. Calls the model made (function calls, tool executions,
 * handoffs) become one assistant message with tool calls, each followed by its result as a tool message, in the
 * order the chat API requires; a function call's result is the client's later `function.result`.
 */
export function messagesOf(entries: readonly Entry[]): Message[] {
  const out: Message[] = [];
  let calls: ToolCall[] = [];
  let results: Message[] = [];
  const flush = () => {
    if (calls.length) out.push({ role: "assistant", content: "", tool_calls: calls, prefix: false }, ...results);
    calls = [];
    results = [];
  };
  for (const entry of entries) {
    switch (entry.type) {
      case "message.input":
        flush();
        out.push(entry.role === "assistant" ? { role: "assistant", content: contentFor(entry.content), prefix: Boolean(entry.prefix) } : { role: "user", content: contentFor(entry.content) });
        break;
      case "message.output":
        flush();
        out.push({ role: "assistant", content: contentFor(entry.content), prefix: false });
        break;
      case "function.call":
        calls.push({ id: String(entry.tool_call_id), type: "function", function: { name: String(entry.name), arguments: argumentsText(entry.arguments) } });
        break;
      case "function.result":
        flush();
        out.push({ role: "tool", content: String(entry.result), tool_call_id: String(entry.tool_call_id) });
        break;
      case "tool.execution": {
        const id = entry.callId ?? entry.id;
        calls.push({ id, type: "function", function: { name: String(entry.name), arguments: String(entry.arguments) } });
        results.push({ role: "tool", content: executionResult(entry), tool_call_id: id, name: String(entry.name) });
        break;
      }
      case "agent.handoff": {
        const id = entry.callId ?? entry.id;
        const name = handoffToolName(String(entry.next_agent_name), String(entry.next_agent_id));
        calls.push({ id, type: "function", function: { name, arguments: "{}" } });
        results.push({ role: "tool", content: `The conversation was handed over to agent '${String(entry.next_agent_name)}'.`, tool_call_id: id, name });
        break;
      }
    }
  }
  flush();
  return out;
}

/** The entries up to and including `entryId` (a restart's history), or undefined when the conversation has none such. */
export function entriesThrough(entries: readonly Entry[], entryId: string): Entry[] | undefined {
  const at = entries.findIndex((entry) => entry.id === entryId);
  return at < 0 ? undefined : entries.slice(0, at + 1);
}

export const isMessage = (entry: Entry) => entry.type === "message.input" || entry.type === "message.output";
