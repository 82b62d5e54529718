import type { FakeTables } from "./fake-table.js";

/** A function tool as conversations and agents take it. */
export const lookupTool = { type: "function" as const, function: { name: "lookup", description: "Looks a thing up", strict: false, parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } } };

/** The conversations table's items, split into heads and the entries they hold (parsed), in sort order. */
export function conversationItems(held: FakeTables) {
  const items = held.items("conversations").toSorted((a, b) => String(a.sk).localeCompare(String(b.sk)));
  return {
    heads: items.filter((i) => String(i.sk).startsWith("CONV#")) as Record<string, any>[],
    entries: items.filter((i) => String(i.sk).startsWith("E#")).map((i) => JSON.parse(String(i.entry)) as Record<string, any>),
  };
}

/** The events of a conversation stream: each SSE event's name and its data parsed. */
export function conversationEvents(body: string): { event: string; data: Record<string, any> }[] {
  return body
    .split("\n\n")
    .filter(Boolean)
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "";
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? "{}";
      return { event, data: JSON.parse(data) as Record<string, any> };
    });
}
