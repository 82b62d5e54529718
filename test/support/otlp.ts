import { randomBytes } from "node:crypto";
import type { ExportLogsRequest, ExportTraceRequest, KeyValue, OtlpSpan } from "../../shared/domain/observability/otlp.js";

export const hex = (bytes: number) => randomBytes(bytes).toString("hex");
export const str = (key: string, value: string): KeyValue => ({ key, value: { stringValue: value } });
export const int = (key: string, value: number): KeyValue => ({ key, value: { intValue: String(value) } });

const base = 1_795_000_000_000_000_000n;

/** An OTLP span (a GenAI chat call by default), `index` microseconds after a fixed instant. */
export function anOtlpSpan(traceId: string, index = 0, overrides: Partial<OtlpSpan> = {}): OtlpSpan {
  const start = base + BigInt(index) * 1_000n;
  return {
    traceId,
    spanId: hex(8),
    name: "chat mistral-small-latest",
    kind: 3,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 250_000_000n),
    attributes: [
      str("gen_ai.operation.name", "chat"),
      str("gen_ai.provider.name", "mistral_ai"),
      str("gen_ai.request.model", "mistral-small-latest"),
      str("gen_ai.response.model", "mistral-small-2506"),
      int("gen_ai.usage.input_tokens", 12),
      int("gen_ai.usage.output_tokens", 7),
      { key: "gen_ai.response.finish_reasons", value: { arrayValue: { values: [{ stringValue: "stop" }] } } },
      { key: "gen_ai.request.temperature", value: { doubleValue: 0.5 } },
      str("http.request.method", "POST"),
    ],
    status: { code: 0 },
    ...overrides,
  };
}

export function anExportRequest(spans: OtlpSpan[], resource: KeyValue[] = [str("service.name", "my-app"), str("deployment.environment.name", "test")]): ExportTraceRequest {
  return { resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: "@mistralai/mistralai", version: "2.7.0" }, spans }] }] };
}

export function aLogsRequest(records: { traceId?: string; spanId?: string; body?: string; severity?: number }[]): ExportLogsRequest {
  return {
    resourceLogs: [
      {
        resource: { attributes: [str("service.name", "my-app")] },
        scopeLogs: [
          {
            scope: { name: "app.logger" },
            logRecords: records.map((r, i) => ({
              timeUnixNano: String(base + BigInt(i) * 1_000n),
              severityNumber: r.severity ?? 9,
              severityText: "INFO",
              body: { stringValue: r.body ?? `log ${i}` },
              traceId: r.traceId ?? "",
              spanId: r.spanId ?? "",
              attributes: [str("logger", "main")],
            })),
          },
        ],
      },
    ],
  };
}
