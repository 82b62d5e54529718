import { appendTelemetry } from "../../blobs/telemetry.js";
import type { Caller } from "../../domain/caller.js";
import { logsFromOtlp, spansFromOtlp, type ExportLogsRequest, type ExportTraceRequest, type Mapped } from "../../domain/observability/otlp.js";
import { writeSpans } from "./span-writer.js";

/**
 * OTLP/HTTP ingest (POST /telemetry/v1/traces and /telemetry/v1/logs): the export request's items mapped to
 * rows of the caller's workspace (never the workspace its attributes claim), stored, and the rejected ones
 * counted for the partial-success answer. A store that refuses the rows fails the request (5xx), so that the
 * exporter retries it, as OTLP expects.
 */

export interface IngestOutcome {
  accepted: number;
  rejected: number;
  errorMessage: string;
}

const outcome = (mapped: Mapped<unknown>): IngestOutcome => ({ accepted: mapped.rows.length, rejected: mapped.rejected, errorMessage: mapped.errors.join("; ") });

export async function ingestTraces(caller: Pick<Caller, "organization" | "workspace" | "principal">, request: ExportTraceRequest): Promise<IngestOutcome> {
  const mapped = spansFromOtlp(request, caller);
  await writeSpans(mapped.rows);
  return outcome(mapped);
}

export async function ingestLogs(caller: Pick<Caller, "organization" | "workspace" | "principal">, request: ExportLogsRequest): Promise<IngestOutcome> {
  const mapped = logsFromOtlp(request, caller);
  await appendTelemetry("logs", mapped.rows);
  return outcome(mapped);
}
