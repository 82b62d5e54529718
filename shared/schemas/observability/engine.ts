/**
 * The wire shapes of the observability engine's routes (search, aggregate, fields, options): what the
 * handlers validate and what the OpenAPI document publishes (reference/mistral-openapi.yaml's SpansRequest,
 * LogsRequest, AggregationRequest, Aggregation, OtelFieldDefinition, FeedResult*).
 */
import * as z from "zod";
import { queryInt } from "../query.js";

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const instant = z.string().refine((s) => ISO.test(s) && !Number.isNaN(Date.parse(s)), "Expected an ISO-8601 date-time");

export const WindowQuery = z.object({ from: instant.optional(), to: instant.optional() });

export const SearchQuery = WindowQuery.extend({
  page_size: queryInt().min(0).max(100).default(50),
  cursor: z.string().max(2000).optional(),
});

export const SearchBody = z.object({ search_expression: z.string().nullish() }).optional();
export const LogsSearchBody = z.object({ search_expression: z.string().nullish(), order: z.enum(["asc", "desc"]).default("desc") }).optional();

export const metricAggregations = ["count", "count_distinct", "sum", "avg", "min", "max", "p50", "p90", "p95", "p99"] as const;

export const AggregationBody = z.object({
  metric: z.object({ measure: z.string().min(1).max(200), aggregation: z.enum(metricAggregations) }),
  dimensions: z.array(z.string().min(1).max(200)).max(10).default([]),
  time_dimension: z.object({ granularity: z.enum(["auto", "second", "minute", "hour", "day", "week", "month"]).default("auto") }).nullish(),
  search_expression: z.string().nullish(),
  order_by: z.array(z.object({ field: z.string().min(1).max(200), direction: z.enum(["asc", "desc"]).default("asc") })).max(12).nullish(),
  limit: z.int().min(1).max(10_000).default(1000),
});
export type AggregationBody = z.output<typeof AggregationBody>;

export const FieldParams = z.object({ field_name: z.string().min(1).max(200) });

const feed = (row: z.ZodType) => z.object({ results: z.array(row), next: z.string().nullable(), cursor: z.string().nullable() });
const record = z.record(z.string(), z.unknown());

export const SpansPage = z.object({ spans: feed(record) });
export const SpanEvaluationsPage = z.object({ span_evaluations: feed(record) });
export const TracesPage = z.object({ traces: feed(record) });
export const LogsPage = z.object({ logs: feed(record) });

export const AggregationOut = z.object({
  data: z.array(z.object({ time_bucket: z.string().nullable(), dimensions: record, metric_name: z.string(), metric_value: z.number().nullable() })),
  meta: z.object({ from_timestamp: z.string(), to_timestamp: z.string(), granularity_seconds: z.int().nullable() }),
});

export const FieldDefinitionsOut = z.object({
  field_definitions: z.array(
    z.object({
      name: z.string(),
      label: z.string(),
      type: z.enum(["ENUM", "TEXT", "INT", "FLOAT", "BOOL", "TIMESTAMP", "ARRAY", "MAP"]),
      group: z.string().nullable(),
      supported_operators: z.array(z.string()),
      supported_aggregations: z.array(z.enum(metricAggregations)),
    }),
  ),
});

export const FieldOptionsOut = z.object({ options: z.array(z.string()).nullable() });
