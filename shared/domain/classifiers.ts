import type { Message } from "../schemas/inference.js";

/**
 * What a moderation model reads of a conversation (POST /v1/chat/moderations and /v1/chat/classifications):
 * each message as `role: text`, one a line, the text chunks of structured content and the calls of
 * assistant turns included, so a call's arguments are moderated like any text.
 */
export function conversationText(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      const content = message.content;
      const text = typeof content === "string" ? content : (content ?? []).map((chunk) => (typeof chunk.text === "string" ? chunk.text : "")).join("");
      const calls = message.role === "assistant" ? (message.tool_calls ?? []).map((c) => ` ${c.function.name}(${typeof c.function.arguments === "string" ? c.function.arguments : JSON.stringify(c.function.arguments)})`).join("") : "";
      return `${message.role}: ${text}${calls}`;
    })
    .join("\n");
}

/** A classification result of a moderation model: one target, `moderation`, scored by category. */
export const moderationAsClassification = (categoryScores: Record<string, number>) => ({ moderation: { scores: categoryScores } });

/** One conversation or several, as the chat routes take them. */
export const conversationsOf = (input: Message[] | Message[][]): Message[][] =>
  input.length > 0 && Array.isArray(input[0]) ? (input as Message[][]) : [input as Message[]];
