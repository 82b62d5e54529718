import { expect } from "vitest";
import type { AgentsClient } from "./agents-client.js";

export type ListedAgentVersion = { version: number; description: string | null; metadata: Record<string, number> | null; version_message: string | null };

/** Every version of an agent, by number. */
export async function everyVersion(client: AgentsClient, id: string): Promise<ListedAgentVersion[]> {
  const reply = await client.listVersions(id, { page_size: 100 });
  expect(reply.status).toBe(200);
  return (reply.body as ListedAgentVersion[]).toSorted((a, b) => a.version - b.version);
}
