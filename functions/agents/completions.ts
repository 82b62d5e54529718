import * as agentCompletions from "../model-replies.js";
import { route } from "../route.js";
import { callHeadersOf } from "../../shared/http/call-headers.js";
import { AgentsCompletionRequest } from "../../shared/schemas/agent.js";
import { CompletionOut } from "../../shared/schemas/inference.js";

export const handler = route({ body: AgentsCompletionRequest, returns: CompletionOut }, ({ body, caller, requestId, signal, route, event }) =>
  agentCompletions.complete({ caller, requestId, signal, route, ...callHeadersOf(event) }, body),
);
