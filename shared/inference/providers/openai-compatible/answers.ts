import { UpstreamError, type Completion, type CompletionChoiceResult, type CompletionEvent, type UpstreamUsage } from "../../types.js";
import type { FinishReason, ToolCall } from "../../../schemas/inference.js";
import { malformed, messageIn } from "./errors.js";
import { isRecord } from "./json.js";

export const FINISH_REASONS = new Map<string, FinishReason>([
  ["stop", "stop"],
  ["length", "length"],
  ["model_length", "model_length"],
  ["tool_calls", "tool_calls"],
  ["function_call", "tool_calls"],
  ["error", "error"],
  ["content_filter", "error"],
]);



export function toCompletion(answer: unknown): Completion {
  if (!isRecord(answer) || !Array.isArray(answer.choices)) throw malformed("there are no choices");
  const choices = answer.choices
    .map((choice, position) => ({ choice: isRecord(choice) ? choice : {}, position }))
    .map(({ choice, position }) => ({ index: typeof choice.index === "number" ? choice.index : position, choice }))
    .sort((a, b) => a.index - b.index)
    .map(({ choice }): CompletionChoiceResult => {
      const message = isRecord(choice.message) ? choice.message : {};
      return {
        content: textOf(message.content ?? choice.text),
        toolCalls: toolCallsOf(message.tool_calls),
        finishReason: finishReasonOf(choice.finish_reason),
      };
    });
  const usage = usageOf(answer.usage);
  return usage ? { choices, usage } : { choices };
}

/** Accumulates a stream's chunks into events: deltas as they come, tool calls whole when their choice ends. */
export class StreamedChoices {
  private readonly open = new Map<number, Map<number, PartialToolCall>>();
  private readonly finished = new Set<number>();

  *accept(chunk: unknown): Generator<CompletionEvent> {
    if (!isRecord(chunk)) throw new UpstreamError(502, "The upstream sent a malformed stream chunk");
    if (chunk.error !== undefined && chunk.error !== null) {
      throw new UpstreamError(502, `The upstream failed mid-stream: ${messageIn(chunk.error) ?? "unknown error"}`);
    }
    if (chunk.object === "error") throw new UpstreamError(502, `The upstream failed mid-stream: ${messageIn(chunk) ?? "unknown error"}`);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const [position, raw] of choices.entries()) {
      if (!isRecord(raw)) continue;
      const index = typeof raw.index === "number" ? raw.index : position;
      const calls = this.open.get(index) ?? new Map<number, PartialToolCall>();
      this.open.set(index, calls);
      const delta = isRecord(raw.delta) ? raw.delta : {};
      const content = textOf(delta.content ?? raw.text);
      if (content) yield { type: "delta", index, content };
      if (Array.isArray(delta.tool_calls)) for (const fragment of delta.tool_calls) addFragment(calls, fragment);
      if (raw.finish_reason !== null && raw.finish_reason !== undefined) yield* this.finish(index, finishReasonOf(raw.finish_reason));
    }
    const usage = usageOf(chunk.usage);
    if (usage) yield { type: "usage", ...usage };
  }

  /** At the end of the stream, choices the upstream never finished end as `stop`. */
  *end(): Generator<CompletionEvent> {
    for (const index of [...this.open.keys()].sort((a, b) => a - b)) {
      if (!this.finished.has(index)) yield* this.finish(index, "stop");
    }
  }

  private *finish(index: number, reason: FinishReason): Generator<CompletionEvent> {
    if (this.finished.has(index)) return;
    this.finished.add(index);
    const calls = [...(this.open.get(index)?.entries() ?? [])].sort(([a], [b]) => a - b);
    if (calls.length > 0) {
      yield {
        type: "delta",
        index,
        toolCalls: calls.map(([position, call]) => ({
          ...(call.id ? { id: call.id } : {}),
          type: call.type ?? "function",
          function: { name: call.name, arguments: call.arguments },
          index: position,
        })),
      };
    }
    yield { type: "finish", index, reason };
  }
}

export interface PartialToolCall {
  id?: string;
  type?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/** OpenAI servers stream a call's `arguments` in pieces keyed by `index`; Mistral sends each call whole. */
export function addFragment(calls: Map<number, PartialToolCall>, fragment: unknown): void {
  if (!isRecord(fragment)) return;
  const id = typeof fragment.id === "string" && fragment.id ? fragment.id : undefined;
  let position: number;
  if (typeof fragment.index === "number") position = fragment.index;
  else {
    const known = id ? [...calls].find(([, call]) => call.id === id)?.[0] : undefined;
    position = known ?? (id || calls.size === 0 ? calls.size : calls.size - 1);
  }
  const call = calls.get(position) ?? { name: "", arguments: "" };
  calls.set(position, call);
  if (id) call.id = id;
  if (typeof fragment.type === "string") call.type = fragment.type;
  const fn = isRecord(fragment.function) ? fragment.function : {};
  if (typeof fn.name === "string" && fn.name && !call.name) call.name = fn.name;
  if (typeof fn.arguments === "string") call.arguments = typeof call.arguments === "string" ? call.arguments + fn.arguments : fn.arguments;
  else if (isRecord(fn.arguments)) call.arguments = fn.arguments;
}

export function toolCallsOf(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw): ToolCall[] => {
    if (!isRecord(raw) || !isRecord(raw.function) || typeof raw.function.name !== "string") return [];
    const args = raw.function.arguments;
    return [
      {
        ...(typeof raw.id === "string" && raw.id ? { id: raw.id } : {}),
        type: typeof raw.type === "string" ? raw.type : "function",
        function: { name: raw.function.name, arguments: typeof args === "string" || isRecord(args) ? args : "" },
      },
    ];
  });
}

/** A string, or the concatenated text of content chunks (thinking and other chunks are left out). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((chunk) => (isRecord(chunk) && chunk.type === "text" && typeof chunk.text === "string" ? chunk.text : ""))
    .join("");
}

export function finishReasonOf(value: unknown): FinishReason {
  return (typeof value === "string" && FINISH_REASONS.get(value)) || "stop";
}

/** The answer's usage; cached prompt tokens as OpenAI (`prompt_tokens_details.cached_tokens`) or Mistral (`num_cached_tokens`) report them. */
export function usageOf(value: unknown): UpstreamUsage | undefined {
  if (!isRecord(value) || typeof value.prompt_tokens !== "number") return undefined;
  const details = isRecord(value.prompt_tokens_details) ? value.prompt_tokens_details : undefined;
  const cached = typeof details?.cached_tokens === "number" ? details.cached_tokens : typeof value.num_cached_tokens === "number" ? value.num_cached_tokens : 0;
  return {
    promptTokens: value.prompt_tokens,
    completionTokens: typeof value.completion_tokens === "number" ? value.completion_tokens : 0,
    ...(cached > 0 ? { cachedTokens: Math.min(cached, value.prompt_tokens) } : {}),
  };
}
