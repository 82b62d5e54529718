import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import { keyFits } from "../../domain/storage-limits.js";
import { LISTED_EXECUTIONS, type ScheduleRecentExecution, type ScheduleRecord } from "../../domain/workflows/schedules/records.js";
import { documents, ifConditionHolds, setFields } from "../client.js";

/**
 * Workflow schedules in the `executions` table (docs/workflows.md, "Schedules"). Armed schedules carry
 * `dueKey` (one of DUE_SHARDS partitions) and `dueAt` (the armed time) in the sparse `dueSchedules` index, so
 * the sweeper finds fires that were lost without a scan.
 */
const table = () => tableName("executions");
const ws = (workspace: string) => `WS#${workspace}`;
const PREFIX = "SCHED#";
export const scheduleKey = (workspace: string, scheduleId: string) => ({ pk: ws(workspace), sk: `${PREFIX}${scheduleId}` });

export const DUE_SHARDS = 4;
const dueKeyOf = (workspace: string, scheduleId: string) => {
  let h = 0;
  for (const c of `${workspace}/${scheduleId}`) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `DUE#${h % DUE_SHARDS}`;
};

const STRIP = ["pk", "sk", "dueKey", "dueAt"];
function strip(item: Record<string, unknown>): ScheduleRecord {
  const copy = { ...item };
  for (const key of STRIP) delete copy[key];
  return copy as unknown as ScheduleRecord;
}

/** The index fields of a schedule armed at `fireAt` (none when it is not armed). */
const dueFields = (record: Pick<ScheduleRecord, "workspace" | "scheduleId" | "paused" | "fireAt">) =>
  !record.paused && record.fireAt ? { dueKey: dueKeyOf(record.workspace, record.scheduleId), dueAt: record.fireAt } : {};

/** SET the given fields and the index fields (REMOVE them when the schedule is no longer armed). */
function updateOf(record: ScheduleRecord, fields: Partial<ScheduleRecord>) {
  const due = dueFields(record);
  const set = setFields({ ...fields, ...due });
  const clauses = [...(set.UpdateExpression === "SET " ? [] : [set.UpdateExpression]), ...(due.dueKey ? [] : ["REMOVE dueKey, dueAt"])];
  return { ...set, UpdateExpression: clauses.join(" ") };
}

/**
 * One conditional update of a schedule's item: its output, or undefined when the condition did not hold. The
 * fire handler's small atomic steps (count, give back, recent, buffer) are each one of these.
 */
function updateSchedule(
  workspace: string,
  scheduleId: string,
  update: { expression: string; condition: string; names?: Record<string, string>; values?: Record<string, unknown>; returnValues?: "ALL_NEW" | "UPDATED_NEW" },
) {
  return ifConditionHolds(
    documents.send(
      new UpdateCommand({
        TableName: table(),
        Key: scheduleKey(workspace, scheduleId),
        UpdateExpression: update.expression,
        ConditionExpression: update.condition,
        ...(update.names ? { ExpressionAttributeNames: update.names } : {}),
        ...(update.values ? { ExpressionAttributeValues: update.values } : {}),
        ...(update.returnValues ? { ReturnValues: update.returnValues } : {}),
      }),
    ),
  );
}

export const scheduleStore = {
  /** false when the id is taken in the workspace. */
  async create(record: ScheduleRecord): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(
        new PutCommand({
          TableName: table(),
          Item: { ...scheduleKey(record.workspace, record.scheduleId), ...record, ...dueFields(record) },
          ConditionExpression: "attribute_not_exists(sk)",
        }),
      ),
    );
    return out !== undefined;
  },

  async get(workspace: string, scheduleId: string): Promise<ScheduleRecord | undefined> {
    if (!keyFits(scheduleKey(workspace, scheduleId).sk, "sort")) return undefined;
    const out = await documents.send(new GetCommand({ TableName: table(), Key: scheduleKey(workspace, scheduleId), ConsistentRead: true }));
    return out.Item ? strip(out.Item) : undefined;
  },

  /** A page of the workspace's schedules by id, from after `afterId`; `more` when the key range goes on. */
  async page(workspace: string, afterId: string | null, limit: number): Promise<{ items: ScheduleRecord[]; more: boolean }> {
    const out = await documents.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: { ":pk": ws(workspace), ":prefix": PREFIX },
        ...(afterId !== null ? { ExclusiveStartKey: scheduleKey(workspace, afterId) } : {}),
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return { items: (out.Items ?? []).map(strip), more: out.LastEvaluatedKey !== undefined };
  },

  /**
   * Writes what the API changed (definition, pause, note) and the recomputed next fire: only these fields,
   * so a fire running meanwhile keeps its own (remaining, recent, buffered). false when the schedule is gone.
   */
  async change(record: ScheduleRecord, fields: Partial<ScheduleRecord>): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: scheduleKey(record.workspace, record.scheduleId),
          ...withCondition(updateOf(record, fields), "attribute_exists(sk)"),
        }),
      ),
    );
    return out !== undefined;
  },

  /**
   * Takes the fire of nominal time `nextAt` (one taker however many deliveries race): moves the schedule to
   * its next fire. false when another taker moved it, the API changed it, or it was paused meanwhile.
   */
  async claim(record: ScheduleRecord, next: { nextAt: string | null; fireAt: string | null }): Promise<boolean> {
    const moved = { ...record, ...next };
    const update = updateOf(moved, { nextAt: next.nextAt, fireAt: next.fireAt });
    const out = await ifConditionHolds(
      documents.send(
        new UpdateCommand({
          TableName: table(),
          Key: scheduleKey(record.workspace, record.scheduleId),
          ...withCondition(update, "#claimNext = :claimNext AND #claimPaused = :claimPaused", { "#claimNext": "nextAt", "#claimPaused": "paused" }, { ":claimNext": record.nextAt, ":claimPaused": false }),
        }),
      ),
    );
    return out !== undefined;
  },

  /** Counts one automatic fire of a limited schedule: the remaining count after it, or undefined when it was 0 already. */
  async countFire(workspace: string, scheduleId: string): Promise<number | null | undefined> {
    const out = await updateSchedule(workspace, scheduleId, {
      expression: "SET #rem = #rem - :one",
      condition: "attribute_exists(sk) AND #rem > :zero",
      names: { "#rem": "remaining" },
      values: { ":one": 1, ":zero": 0 },
      returnValues: "ALL_NEW",
    });
    if (out === undefined) return undefined;
    const remaining = out.Attributes?.remaining;
    return typeof remaining === "number" ? remaining : null;
  },

  /** Gives back a fire counted by countFire that did not start after all. */
  async refund(workspace: string, scheduleId: string): Promise<void> {
    await updateSchedule(workspace, scheduleId, {
      expression: "SET #rem = #rem + :one",
      condition: "attribute_exists(sk) AND attribute_type(#rem, :n)",
      names: { "#rem": "remaining" },
      values: { ":one": 1, ":n": "N" },
    });
  },

  /** Appends a started execution, keeping the last LISTED_EXECUTIONS. */
  async addRecent(workspace: string, scheduleId: string, entry: ScheduleRecentExecution): Promise<void> {
    const recent = { "#recent": "recent" };
    const out = await updateSchedule(workspace, scheduleId, {
      expression: "SET #recent = list_append(#recent, :entry)",
      condition: "attribute_exists(sk)",
      names: recent,
      values: { ":entry": [entry] },
      returnValues: "UPDATED_NEW",
    });
    const length = (out?.Attributes?.recent as unknown[] | undefined)?.length ?? 0;
    for (let extra = length - LISTED_EXECUTIONS; extra > 0; extra--) {
      // Only the first entry, and only while there are too many: concurrent trims never remove one too many.
      await updateSchedule(workspace, scheduleId, { expression: "REMOVE #recent[0]", condition: "size(#recent) > :max", names: recent, values: { ":max": LISTED_EXECUTIONS } });
    }
  },

  /** Holds a fire back (buffer one: only into an empty buffer; buffer all: up to `max`); false when full. */
  async buffer(workspace: string, scheduleId: string, nominal: string, max: number): Promise<boolean> {
    const out = await updateSchedule(workspace, scheduleId, {
      expression: "SET #buf = list_append(#buf, :n)",
      condition: "attribute_exists(sk) AND size(#buf) < :max",
      names: { "#buf": "buffered" },
      values: { ":n": [nominal], ":max": max },
    });
    return out !== undefined;
  },

  /** Takes the oldest buffered fire, if it is still `nominal` (one taker). */
  async unbuffer(workspace: string, scheduleId: string, nominal: string): Promise<boolean> {
    const out = await updateSchedule(workspace, scheduleId, { expression: "REMOVE #buf[0]", condition: "#buf[0] = :n", names: { "#buf": "buffered" }, values: { ":n": nominal } });
    return out !== undefined;
  },

  /** Marks the schedule due at `at` (a buffered fire can start now): the sweeper and an armed timer both find it. */
  async markDue(record: ScheduleRecord, at: string): Promise<void> {
    await updateSchedule(record.workspace, record.scheduleId, {
      expression: "SET dueKey = :k, dueAt = :at",
      condition: "attribute_exists(sk) AND #paused = :f",
      names: { "#paused": "paused" },
      values: { ":k": dueKeyOf(record.workspace, record.scheduleId), ":at": at, ":f": false },
    });
  },

  async remove(workspace: string, scheduleId: string): Promise<boolean> {
    const out = await ifConditionHolds(
      documents.send(new DeleteCommand({ TableName: table(), Key: scheduleKey(workspace, scheduleId), ConditionExpression: "attribute_exists(sk)" })),
    );
    return out !== undefined;
  },

  /** Armed schedules whose time is before `beforeIso`, every shard (the sweeper's look for lost fires). */
  async dueBefore(beforeIso: string, limit = 500): Promise<Pick<ScheduleRecord, "workspace" | "scheduleId">[]> {
    const found: Pick<ScheduleRecord, "workspace" | "scheduleId">[] = [];
    for (let shard = 0; shard < DUE_SHARDS && found.length < limit; shard++) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const out = await documents.send(
          new QueryCommand({
            TableName: table(),
            IndexName: "dueSchedules",
            KeyConditionExpression: "dueKey = :k AND dueAt < :before",
            ExpressionAttributeValues: { ":k": `DUE#${shard}`, ":before": beforeIso },
            ProjectionExpression: "workspace, scheduleId",
            ExclusiveStartKey: startKey,
            Limit: limit - found.length,
          }),
        );
        for (const item of out.Items ?? []) found.push({ workspace: String(item.workspace), scheduleId: String(item.scheduleId) });
        startKey = out.LastEvaluatedKey;
      } while (startKey && found.length < limit);
    }
    return found;
  },
};

function withCondition<U extends { UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> }>(
  update: U,
  condition: string,
  names: Record<string, string> = {},
  values: Record<string, unknown> = {},
) {
  const allNames = { ...update.ExpressionAttributeNames, ...names };
  const allValues = { ...update.ExpressionAttributeValues, ...values };
  // DynamoDB refuses empty maps.
  return {
    UpdateExpression: update.UpdateExpression,
    ConditionExpression: condition,
    ...(Object.keys(allNames).length ? { ExpressionAttributeNames: allNames } : {}),
    ...(Object.keys(allValues).length ? { ExpressionAttributeValues: allValues } : {}),
  };
}
