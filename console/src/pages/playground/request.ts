/**
 * The playground's requests: what it sends to POST /v1/chat/completions, /v1/fim/completions and
 * /v1/agents/completions (shared/schemas/inference.ts, shared/schemas/agent.ts), and how it reads their chunks.
 */

export interface ModelCard {
  id: string;
  name: string | null;
  description: string | null;
  max_context_length: number;
  aliases: string[];
  archived: boolean;
  capabilities: { completion_chat: boolean; completion_fim: boolean; function_calling: boolean; vision: boolean; reasoning?: boolean };
}

export interface AgentSummary {
  id: string;
  name: string;
  model: string;
  description: string | null;
}

export interface Turn {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ToolCallOut {
  id?: string;
  name: string;
  arguments: string;
}

/** A streamed chunk (chat.completion.chunk; FIM and agents answer in the same shape). */
export interface Chunk {
  model?: string;
  choices?: { index: number; delta?: { content?: unknown; tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: unknown } }[] }; finish_reason?: string | null }[];
  usage?: Usage;
}

/**
 * The `tools` textarea: empty (no tools), or a JSON array of function tools as ChatCompletionRequest's `Tool`
 * takes them (`{type: "function", function: {name, description?, parameters}}`). Returns the array or a message
 * saying what is wrong, so nothing invalid is sent.
 */
export function parseTools(text: string): { tools?: unknown[]; problem?: string } {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `Tools are not valid JSON: ${(error as Error).message}` };
  }
  if (!Array.isArray(value)) return { problem: "Tools must be a JSON array of tool objects." };
  for (const [i, tool] of value.entries()) {
    const at = `Tool ${i + 1}`;
    if (!tool || typeof tool !== "object" || Array.isArray(tool)) return { problem: `${at} is not an object.` };
    const { type = "function", function: fn } = tool as { type?: unknown; function?: unknown };
    if (type !== "function") return { problem: `${at}: type must be "function".` };
    if (!fn || typeof fn !== "object" || Array.isArray(fn)) return { problem: `${at}: "function" must be an object with a name and parameters.` };
    const { name, parameters, description } = fn as { name?: unknown; parameters?: unknown; description?: unknown };
    if (typeof name !== "string" || !name) return { problem: `${at}: function.name must be a non-empty string.` };
    if (!parameters || typeof parameters !== "object" || Array.isArray(parameters)) return { problem: `${at}: function.parameters must be a JSON Schema object.` };
    if (description !== undefined && typeof description !== "string") return { problem: `${at}: function.description must be a string.` };
  }
  return { tools: value };
}

/** The text of a delta's content: a string, or the text chunks of a chunk array (a reasoning model's thinking is left out). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { type?: string; text?: unknown }) => (part?.type === "text" && typeof part.text === "string" ? part.text : "")).join("");
}

/** Adds a chunk's tool-call deltas to the calls so far (by index: the name once, the arguments in pieces). */
export function mergeToolCalls(calls: ToolCallOut[], deltas: NonNullable<NonNullable<NonNullable<Chunk["choices"]>[number]["delta"]>["tool_calls"]>): ToolCallOut[] {
  const next = calls.map((c) => ({ ...c }));
  for (const [position, delta] of deltas.entries()) {
    const index = delta.index ?? position;
    const call = (next[index] ??= { name: "", arguments: "" });
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name += delta.function.name;
    const args = delta.function?.arguments;
    if (typeof args === "string") call.arguments += args;
    else if (args && typeof args === "object") call.arguments += JSON.stringify(args);
  }
  return next;
}

/** The optional numbers of the form: empty is "not sent"; anything else must parse. */
export function optionalNumber(text: string, what: string, check: (n: number) => boolean, range: string): { value?: number; problem?: string } {
  if (!text.trim()) return {};
  const value = Number(text);
  if (!Number.isFinite(value) || !check(value)) return { problem: `${what} must be ${range}.` };
  return { value };
}
