import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import { documents } from "../client.js";

/**
 * A run's published state (docs/workflows.md, `executions` table, `WS#<ws>` / `STATE#<runId>`): the last
 * document the program published with `platform:publish_state`; queries read it (Workflows II).
 */
const table = () => tableName("executions");
const stateKey = (workspace: string, runId: string) => ({ pk: `WS#${workspace}`, sk: `STATE#${runId}` });

export interface PublishedState {
  workspace: string;
  runId: string;
  state: unknown;
  /** Epoch ms of the publication. */
  publishedAtMs: number;
}

export const publishedStateStore = {
  /** Replaces the run's published state. */
  async put(published: PublishedState): Promise<void> {
    await documents.send(new PutCommand({ TableName: table(), Item: { ...stateKey(published.workspace, published.runId), ...published, state: published.state ?? null } }));
  },

  async get(workspace: string, runId: string): Promise<PublishedState | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: stateKey(workspace, runId), ConsistentRead: true }));
    if (!out.Item) return undefined;
    const { pk: _pk, sk: _sk, ...published } = out.Item;
    return published as PublishedState;
  },
};
