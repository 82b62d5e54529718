import type { ConverseStreamOutput } from "@aws-sdk/client-bedrock-runtime";
import type { ToolCall } from "../../../schemas/inference.js";
import { UpstreamError, type CompletionEvent } from "../../types.js";
import { promptUsage, toFinishReason } from "./converse.js";
import { STREAM_EXCEPTIONS, upstreamErrorNamed } from "./errors.js";

interface ToolBuffer {
  toolUseId: string | undefined;
  name: string | undefined;
  input: string;
}

/**
 * ConverseStream events as completion events for choice 0 (docs: inference-backends §2.2).
 * - text deltas pass through as they come; Bedrock may send them without a contentBlockStart;
 * - a tool use is buffered from its contentBlockStart through its partial-JSON input deltas and sent as one
 *   delta with the complete call at its contentBlockStop (events without a block index use the last tool block);
 * - messageStop gives the `finish` event, metadata (after it) the `usage` event;
 * - an exception event throws an UpstreamError, as does a stream that ends before messageStop.
 */
export async function* completionEvents(stream: AsyncIterable<ConverseStreamOutput>): AsyncGenerator<CompletionEvent> {
  const openTools = new Map<number, ToolBuffer>();
  let lastTool: ToolBuffer | undefined;
  let toolCallCount = 0;
  let stopped = false;

  const findTool = (blockIndex: number | undefined) => (blockIndex === undefined ? lastTool : openTools.get(blockIndex));
  const completeTool = (tool: ToolBuffer): CompletionEvent => {
    for (const [index, open] of openTools) if (open === tool) openTools.delete(index);
    if (lastTool === tool) lastTool = undefined;
    const call: ToolCall = {
      id: tool.toolUseId,
      type: "function",
      function: { name: tool.name ?? "", arguments: normaliseArguments(tool.input) },
      index: toolCallCount++,
    };
    return { type: "delta", index: 0, toolCalls: [call] };
  };

  for await (const event of stream) {
    throwIfException(event);
    if (event.contentBlockStart) {
      const toolUse = event.contentBlockStart.start?.toolUse;
      if (toolUse) {
        lastTool = { toolUseId: toolUse.toolUseId, name: toolUse.name, input: "" };
        openTools.set(event.contentBlockStart.contentBlockIndex ?? -1, lastTool);
      }
    } else if (event.contentBlockDelta) {
      const { delta, contentBlockIndex } = event.contentBlockDelta;
      if (delta?.text) {
        yield { type: "delta", index: 0, content: delta.text };
      } else if (delta?.toolUse) {
        const tool = findTool(contentBlockIndex) ?? lastTool;
        if (tool) tool.input += delta.toolUse.input ?? "";
      }
      // reasoningContent deltas (reasoning models) are dropped, as in the non-streamed response.
    } else if (event.contentBlockStop) {
      const tool = findTool(event.contentBlockStop.contentBlockIndex);
      if (tool) yield completeTool(tool);
    } else if (event.messageStop) {
      for (const tool of new Set([...openTools.values()])) yield completeTool(tool);
      stopped = true;
      yield { type: "finish", index: 0, reason: toFinishReason(event.messageStop.stopReason) };
    } else if (event.metadata?.usage) {
      yield { type: "usage", ...promptUsage(event.metadata.usage), completionTokens: event.metadata.usage.outputTokens ?? 0 };
    }
  }
  if (!stopped) throw new UpstreamError(502, "The bedrock stream ended before the model finished its message");
}

function throwIfException(event: ConverseStreamOutput): void {
  for (const [member, name] of Object.entries(STREAM_EXCEPTIONS)) {
    const exception = (event as unknown as Record<string, { message?: string } | undefined>)[member];
    if (exception) throw upstreamErrorNamed(name, exception.message || name);
  }
}

/** The buffered input, re-serialised compactly like the non-streamed response; passed through if not JSON. */
function normaliseArguments(input: string): string {
  if (!input.trim()) return "{}";
  try {
    return JSON.stringify(JSON.parse(input));
  } catch {
    return input;
  }
}
