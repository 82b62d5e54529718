import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { tableName } from "../../config.js";
import { positionOf, type WorkflowLogLine } from "../../domain/workflows/logs.js";
import { documents } from "../client.js";

/**
 * Workflow log lines (docs/workflows.md, "Logs"), in the executions table: each line twice, under its
 * execution (`WFLOG#<ws>#<executionId>`) and under its deployment (`WFDEPLOG#<ws>#<deployment>`), sorted by
 * `L#<position>` (the time the platform took it, in microseconds, then a random id). Both expire with `ttl`.
 */
const table = () => tableName("executions");
const executionPartition = (workspace: string, executionId: string) => `WFLOG#${workspace}#${executionId}`;
const deploymentPartition = (workspace: string, deployment: string) => `WFDEPLOG#${workspace}#${deployment}`;
const sortKey = (position: string) => `L#${position}`;
const PARALLEL_PUTS = 25;
/** Items read per query when filtering (the filter is applied here: DynamoDB would read the same items). */
const READ = 200;

export type LogPartition = { kind: "execution"; workspace: string; executionId: string } | { kind: "deployment"; workspace: string; deployment: string };

const partitionOf = (where: LogPartition) => (where.kind === "execution" ? executionPartition(where.workspace, where.executionId) : deploymentPartition(where.workspace, where.deployment));

export interface LogQuery {
  /** Positions bounding the range, both inclusive (`0…` and `9…` for open ends). */
  from: string;
  to: string;
  ascending: boolean;
  limit: number;
  /** The position the previous page ended at (excluded). */
  after?: string;
  /** Only these attributes' values (worker_name, workflow_name, run_id, activity_id). */
  match?: Record<string, string>;
}

export const logStore = {
  /** Writes the lines under their executions and deployments, expiring at `ttl` (epoch seconds). */
  async append(lines: readonly WorkflowLogLine[], ttl: number): Promise<void> {
    const items = lines.flatMap((line) => {
      const item = { sk: sortKey(positionOf(line)), line, ttl };
      return [
        { pk: executionPartition(line.workspace, line.executionId), ...item },
        { pk: deploymentPartition(line.workspace, line.deploymentName), ...item },
      ];
    });
    // Puts of distinct keys, a few at a time: nothing reads a line before both are written and settled.
    for (let i = 0; i < items.length; i += PARALLEL_PUTS) {
      await Promise.all(items.slice(i, i + PARALLEL_PUTS).map((Item) => documents.send(new PutCommand({ TableName: table(), Item }))));
    }
  },

  /** A page of a partition's lines in the range, in order; `last` is where it ended when more may follow. */
  async page(where: LogPartition, query: LogQuery): Promise<{ lines: WorkflowLogLine[]; last: string | null }> {
    // An empty range (after at or past before): DynamoDB refuses BETWEEN with its bounds reversed.
    if (sortKey(query.from) > sortKey(query.to)) return { lines: [], last: null };
    const pk = partitionOf(where);
    const filters = Object.entries(query.match ?? {});
    const keep = (line: WorkflowLogLine) => filters.every(([key, value]) => line.attributes[key] === value);
    const lines: WorkflowLogLine[] = [];
    let after = query.after;
    let more = true;
    while (more && lines.length < query.limit) {
      const out = await documents.send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
          ExpressionAttributeValues: { ":pk": pk, ":from": sortKey(query.from), ":to": sortKey(query.to) },
          ScanIndexForward: query.ascending,
          Limit: filters.length ? READ : query.limit - lines.length,
          ExclusiveStartKey: after ? { pk, sk: sortKey(after) } : undefined,
        }),
      );
      const items = (out.Items ?? []).map((item) => item.line as WorkflowLogLine);
      more = out.LastEvaluatedKey !== undefined;
      for (const line of items) {
        after = positionOf(line);
        if (!keep(line)) continue;
        lines.push(line);
        if (lines.length === query.limit) {
          more = more || line !== items.at(-1);
          break;
        }
      }
    }
    return { lines, last: more ? (after ?? null) : null };
  },
};
