import * as completions from "../model-replies.js";
import { route } from "../route.js";
import { callHeadersOf } from "../../shared/http/call-headers.js";
import { CompletionOut, FimCompletionRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: FimCompletionRequest, returns: CompletionOut }, ({ body, caller, requestId, signal, route, event }) =>
  completions.fim({ caller, requestId, signal, route, ...callHeadersOf(event) }, body),
);
