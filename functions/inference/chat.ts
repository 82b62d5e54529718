import * as completions from "../model-replies.js";
import { route } from "../route.js";
import { callHeadersOf } from "../../shared/http/call-headers.js";
import { CompletionOut, ChatCompletionRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: ChatCompletionRequest, returns: CompletionOut }, ({ body, caller, requestId, signal, route, event }) =>
  completions.chat({ caller, requestId, signal, route, ...callHeadersOf(event) }, body),
);
