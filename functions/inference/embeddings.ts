import { embed } from "../model-replies.js";
import { route } from "../route.js";
import { traceContextOf } from "../../shared/http/trace-context.js";
import { EmbeddingOut, EmbeddingRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: EmbeddingRequest, returns: EmbeddingOut }, ({ body, caller, requestId, signal, route, event }) =>
  embed({ caller, requestId, signal, route, trace: traceContextOf(event) }, body),
);
