import { route } from "../route.js";
import type { ExportTraceRequest } from "../../shared/domain/observability/otlp.js";
import { exportReply, otlpBody, type OtlpBody } from "../../shared/http/otlp.js";
import { ExportResponseOut } from "../../shared/schemas/observability/ingest.js";
import { ingestTraces } from "../../shared/services/observability/ingest.js";

/** OTLP/HTTP trace export (JSON or protobuf, answered in the same encoding): the SDK's configureTelemetry sends here. */
export const handler = route({ parser: otlpBody("traces"), returns: ExportResponseOut }, async ({ event, caller }) => {
  const { encoding, request } = event.body as unknown as OtlpBody<ExportTraceRequest>;
  return exportReply("traces", encoding, await ingestTraces(caller, request));
});
