import * as agentCompletions from "../model-replies.js";
import { route } from "../../shared/http/route.js";
import { AgentsCompletionRequest } from "../../shared/schemas/agent.js";

export const handler = route({ body: AgentsCompletionRequest, streaming: true }, ({ body, caller, requestId, signal }) =>
  agentCompletions.complete({ caller, requestId, signal, route: "POST /v1/agents/completions" }, body),
);
