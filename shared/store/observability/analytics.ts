/**
 * Runs the query builder's SQL (shared/domain/observability/query.ts) on the analytical store: locally on
 * DuckDB over the JSON-lines (and compacted Parquet) files under $TELEMETRY_DIR, in the cloud on Amazon
 * Athena over the Glue tables of the telemetry bucket. Both hand back rows of plain values (numbers and
 * strings; ARRAY and MAP columns as JSON text), so one decoder serves both.
 *
 * DuckDB is a native dependency of `npm start` and the tests only: it is imported on first local use and
 * kept out of every Lambda bundle (infra/build.ts marks it external; nothing in the cloud imports it).
 */
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type GetQueryResultsCommandOutput,
} from "@aws-sdk/client-athena";
import { TELEMETRY_DIR_ENV } from "../../config.js";
import { ApiError } from "../../domain/errors.js";
import { logger } from "../../observability/logger.js";
import type { Literal } from "../../domain/observability/expression.js";
import { fieldCatalogues, timeField, type Storage } from "../../domain/observability/fields.js";
import { athena, duckdb, type Dialect, type Scope, type Sql } from "../../domain/observability/query.js";
import type { WrittenKind } from "../../domain/observability/records.js";

export const ATHENA_WORKGROUP_ENV = "TELEMETRY_WORKGROUP";
export const GLUE_DATABASE_ENV = "TELEMETRY_DATABASE";

export type Row = Record<string, string | number | null>;

export interface AnalyticsEngine {
  dialect: Dialect;
  run(sql: Sql, scope: Scope, options?: { signal?: AbortSignal }): Promise<Row[]>;
}

/** DuckDB over the files when $TELEMETRY_DIR is set (npm start, tests, bench), Athena otherwise. */
export function analyticsEngine(): AnalyticsEngine {
  const dir = process.env[TELEMETRY_DIR_ENV];
  if (dir) return duckdbEngine(dir);
  const database = process.env[GLUE_DATABASE_ENV];
  const workGroup = process.env[ATHENA_WORKGROUP_ENV];
  if (!database || !workGroup) throw new Error(`Missing environment setting ${GLUE_DATABASE_ENV}/${ATHENA_WORKGROUP_ENV} (or ${TELEMETRY_DIR_ENV} locally)`);
  return athenaEngine({ database, workGroup });
}

// ---------------------------------------------------------------- DuckDB

const DUCK_TYPES: Record<Storage, string> = { string: "VARCHAR", int: "BIGINT", float: "DOUBLE", strings: "VARCHAR[]", map: "MAP(VARCHAR, VARCHAR)" };
const WRITTEN: WrittenKind[] = ["spans", "logs", "span_evaluations"];

const storedColumns = (kind: WrittenKind) => fieldCatalogues[kind].map((f) => [f.name, DUCK_TYPES[f.storage]] as const);
const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

type DuckModule = typeof import("@duckdb/node-api");
type DuckInstance = Awaited<ReturnType<DuckModule["DuckDBInstance"]["create"]>>;
let duck: Promise<{ module: DuckModule; instance: DuckInstance }> | undefined;

async function duckInstance() {
  duck ??= (async () => {
    const module = await import("@duckdb/node-api");
    const instance = await module.DuckDBInstance.create(":memory:", { threads: "2", late_materialization_max_rows: "1000" });
    return { module, instance };
  })();
  return duck;
}

/** A workspace id is a path segment here: only the characters ids are made of. */
const SAFE_SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;
const DAY_MS = 86_400_000;

/** The workspace's files of a kind on the days of the window (a day more on each side: traces gather spans around it). */
export async function partitionFiles(dir: string, kind: WrittenKind, scope: Scope): Promise<{ json: string[]; parquet: string[] }> {
  if (!SAFE_SEGMENT.test(scope.workspace)) return { json: [], parquet: [] };
  const root = join(dir, kind, `workspace_id=${scope.workspace}`);
  const first = new Date(Date.parse(scope.window.from) - DAY_MS).toISOString().slice(0, 10);
  const last = new Date(Date.parse(scope.window.to) + DAY_MS).toISOString().slice(0, 10);
  const days = (await readdir(root).catch(() => [] as string[])).filter((d) => d.startsWith("dt=") && d.slice(3) >= first && d.slice(3) <= last);
  const json: string[] = [];
  const parquet: string[] = [];
  for (const day of days) {
    for (const name of await readdir(join(root, day)).catch(() => [] as string[])) {
      if (name.endsWith(".jsonl")) json.push(join(root, day, name));
      else if (name.endsWith(".parquet")) parquet.push(join(root, day, name));
    }
  }
  return { json, parquet };
}

/**
 * The view a kind's SQL reads: its JSON lines read with the declared schema (no sampling, no type guessing)
 * and its Parquet files, plus the `dt` partition column. A line another process is still appending is
 * malformed: `ignore_errors` turns it into a row of NULLs, which every query drops by its workspace predicate.
 */
export function duckView(kind: WrittenKind, files: { json: string[]; parquet: string[] }): string {
  const columns = storedColumns(kind);
  const names = columns.map(([n]) => `"${n}"`).join(", ");
  const dt = `substr("${timeField(kind)}", 1, 10) AS "dt"`;
  const parts: string[] = [];
  if (files.json.length) {
    const schema = columns.map(([n, t]) => `"${n}": '${t}'`).join(", ");
    parts.push(`SELECT ${names}, ${dt} FROM read_json([${files.json.map(sqlString).join(", ")}], format = 'newline_delimited', ignore_errors = true, columns = {${schema}})`);
  }
  if (files.parquet.length) parts.push(`SELECT ${names}, ${dt} FROM read_parquet([${files.parquet.map(sqlString).join(", ")}], union_by_name = true)`);
  if (!parts.length) parts.push(`SELECT ${columns.map(([n, t]) => `CAST(NULL AS ${t}) AS "${n}"`).join(", ")}, CAST(NULL AS VARCHAR) AS "dt" WHERE false`);
  return `CREATE OR REPLACE TEMP VIEW "${kind}" AS ${parts.join(" UNION ALL BY NAME ")}`;
}

function duckdbEngine(dir: string): AnalyticsEngine {
  return {
    dialect: duckdb,
    async run(sql, scope) {
      const { instance } = await duckInstance();
      const connection = await instance.connect();
      try {
        for (const kind of WRITTEN) {
          if (!sql.text.includes(`"${kind}"`)) continue;
          await connection.run(duckView(kind, await partitionFiles(dir, kind, scope)));
        }
        const reader = await connection.runAndReadAll(sql.text, sql.params as never);
        return reader.getRowObjectsJson() as Row[];
      } catch (error) {
        // Its message may quote the caller's values: only the kind of failure is logged.
        logger.error("analytical query failed", { engine: "duckdb", errorName: (error as Error).name });
        throw new ApiError(500, "server_error", "The analytical query failed", "database_query_error", null, { familyCodes: { observability: "DATABASE_QUERY_ERROR" } });
      } finally {
        connection.closeSync();
      }
    },
  };
}

/**
 * Local only: rewrites the JSON lines of closed partitions as one Parquet file each (DuckDB reads a day of
 * Parquet an order of magnitude faster than its JSON). A file is compacted once its writers have moved on:
 * files are named by the hour they were opened (shared/blobs/telemetry.ts), and only files of hours before
 * `olderThan` (default: an hour ago) are taken, so no line is appended after it is read. Returns the files compacted.
 */
export async function compactTelemetry(dir: string, olderThan = new Date(Date.now() - 3_600_000)): Promise<number> {
  const cutoff = olderThan.toISOString().slice(0, 13).replace(/[-T:]/g, "");
  const { instance } = await duckInstance();
  const connection = await instance.connect();
  let compacted = 0;
  try {
    for (const kind of WRITTEN) {
      for (const workspace of await readdir(join(dir, kind)).catch(() => [] as string[])) {
        for (const day of await readdir(join(dir, kind, workspace)).catch(() => [] as string[])) {
          const partition = join(dir, kind, workspace, day);
          const names = await readdir(partition).catch(() => [] as string[]);
          const closed = names.filter((n) => n.endsWith(".jsonl") && n.slice(0, 10) < cutoff).map((n) => join(partition, n));
          if (!closed.length) continue;
          const target = join(partition, `compacted-${cutoff}-${process.pid}-${names.length}.parquet`);
          const columns = storedColumns(kind);
          const schema = columns.map(([n, t]) => `"${n}": '${t}'`).join(", ");
          await connection.run(
            `COPY (SELECT * FROM read_json([${closed.map(sqlString).join(", ")}], format = 'newline_delimited', ignore_errors = true, columns = {${schema}}) WHERE "workspace_id" IS NOT NULL ORDER BY "${timeField(kind)}") TO ${sqlString(target)} (FORMAT parquet, COMPRESSION zstd)`,
          );
          await Promise.all(closed.map((file) => rm(file)));
          compacted += closed.length;
        }
      }
    }
  } finally {
    connection.closeSync();
  }
  return compacted;
}

// ---------------------------------------------------------------- Athena

/** API Gateway answers after 29 s: a query still running at 25 s is stopped and answered 408. */
export const ATHENA_TIMEOUT_MS = 25_000;
const athenaClient = new AthenaClient({});

/** An Athena execution parameter is a SQL literal: strings quoted (quotes doubled), numbers as they are. */
export const athenaLiteral = (value: Literal): string => (typeof value === "number" ? String(value) : sqlString(value));

function athenaEngine(options: { database: string; workGroup: string }): AnalyticsEngine {
  return {
    dialect: athena(options.database),
    async run(sql, _scope, { signal } = {}) {
      const started = await athenaClient.send(
        new StartQueryExecutionCommand({
          QueryString: sql.text,
          WorkGroup: options.workGroup,
          QueryExecutionContext: { Database: options.database },
          ...(sql.params.length ? { ExecutionParameters: sql.params.map(athenaLiteral) } : {}),
        }),
      );
      const id = started.QueryExecutionId!;
      await waitFor(id, signal);
      return readResults(id);
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(id: string, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + ATHENA_TIMEOUT_MS;
  let pause = 100;
  for (;;) {
    const { QueryExecution } = await athenaClient.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
    const state = QueryExecution?.Status?.State;
    if (state === "SUCCEEDED") return;
    if (state === "FAILED" || state === "CANCELLED") {
      // The reason may quote the statement: it is not shown to the caller.
      const scanLimit = /bytes scanned|BytesScannedCutoff|exceeded/i.test(QueryExecution?.Status?.StateChangeReason ?? "");
      if (scanLimit) throw new ApiError(400, "invalid_request_error", "The search would scan more data than this deployment allows: narrow the window (from/to) or the expression", "search_too_large", null, { familyCodes: { observability: "SEARCH_BAD_REQUEST" } });
      logger.error("analytical query failed", { engine: "athena", queryExecutionId: id, state });
      throw new ApiError(503, "server_error", "The analytical query failed", "database_query_error", null, { familyCodes: { observability: "DATABASE_QUERY_ERROR" } });
    }
    if (Date.now() >= deadline || signal?.aborted) {
      await athenaClient.send(new StopQueryExecutionCommand({ QueryExecutionId: id })).catch(() => undefined);
      throw new ApiError(408, "invalid_request_error", "The search took too long: narrow the window (from/to) or the expression", "database_timeout", null, { familyCodes: { observability: "DATABASE_TIMEOUT" } });
    }
    await sleep(pause);
    pause = Math.min(pause * 2, 1000);
  }
}

async function readResults(id: string): Promise<Row[]> {
  const rows: Row[] = [];
  let header: string[] | undefined;
  let token: string | undefined;
  do {
    const page: GetQueryResultsCommandOutput = await athenaClient.send(new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: token, MaxResults: 1000 }));
    const data = page.ResultSet?.Rows ?? [];
    header ??= page.ResultSet?.ResultSetMetadata?.ColumnInfo?.map((c) => c.Name ?? "") ?? [];
    // The first row of the first page repeats the column names.
    const start = token === undefined ? 1 : 0;
    for (const row of data.slice(start)) {
      rows.push(Object.fromEntries(header.map((name, i) => [name, row.Data?.[i]?.VarCharValue ?? null])));
    }
    token = page.NextToken;
  } while (token);
  return rows;
}
