/**
 * Custom voices in the audio table (shared/store/tables.ts `audioTable`, docs/audio.md): one item per
 * voice, `VOICE#<id>` in its workspace's partition; `createdKey` orders the list.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../config.js";
import type { VoiceRecord } from "../domain/voices.js";
import { documents, ifConditionHolds, setFields } from "./client.js";
import { queryCount, queryPage } from "./query.js";

const table = () => tableName("audio");
const key = (workspace: string, id: string) => ({ workspace, sk: `VOICE#${id}` });
type Item = Record<string, unknown>;

function toRecord(item: Item): VoiceRecord {
  const { sk: _sk, createdKey: _createdKey, ...record } = item;
  return record as unknown as VoiceRecord;
}

const listQuery = (workspace: string) => ({
  TableName: table(),
  IndexName: "byCreated",
  KeyConditionExpression: "#ws = :ws AND begins_with(#created, :voices)",
  ExpressionAttributeNames: { "#ws": "workspace", "#created": "createdKey" },
  ExpressionAttributeValues: { ":ws": workspace, ":voices": "VOICE#" },
  ConsistentRead: true,
});

/** The fields a PATCH may change, as record fields. */
export type VoiceChanges = Partial<Pick<VoiceRecord, "name" | "languages" | "gender" | "age" | "tags" | "description">>;

export const voiceStore = {
  async get(workspace: string, id: string): Promise<VoiceRecord | undefined> {
    const out = await documents.send(new GetCommand({ TableName: table(), Key: key(workspace, id), ConsistentRead: true }));
    return out.Item && toRecord(out.Item);
  },

  /** False when a voice with this id exists already. */
  async create(record: VoiceRecord): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(
        new PutCommand({
          TableName: table(),
          Item: { ...record, ...key(record.workspace, record.id), createdKey: `VOICE#${record.createdAt}#${record.id}` },
          ConditionExpression: "attribute_not_exists(#sk)",
          ExpressionAttributeNames: { "#sk": "sk" },
        }),
      ),
    );
    return out !== undefined;
  },

  async count(workspace: string): Promise<number> {
    return queryCount(listQuery(workspace));
  },

  /** The workspace's voices from `offset`, oldest first. */
  async page(workspace: string, offset: number, size: number): Promise<VoiceRecord[]> {
    if (size <= 0) return [];
    return (await queryPage(listQuery(workspace), offset, size)).map(toRecord);
  },

  /** The voice after the change, or undefined when it is gone. */
  async update(workspace: string, id: string, changes: VoiceChanges): Promise<VoiceRecord | undefined> {
    const set = setFields(changes);
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: key(workspace, id),
          ...set,
          ConditionExpression: "attribute_exists(#sk)",
          ExpressionAttributeNames: { ...set.ExpressionAttributeNames, "#sk": "sk" },
          ReturnValues: "ALL_NEW",
        }),
      ),
    );
    return out?.Attributes && toRecord(out.Attributes);
  },

  /** The voice as it was, or undefined when it was gone already (a racing delete). */
  async remove(workspace: string, id: string): Promise<VoiceRecord | undefined> {
    const out = await documents.send(new DeleteCommand({ TableName: table(), Key: key(workspace, id), ReturnValues: "ALL_OLD" }));
    return out.Attributes && toRecord(out.Attributes);
  },
};
