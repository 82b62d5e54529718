import * as agentCompletions from "../model-replies.js";
import { route } from "../route.js";
import { AgentsCompletionRequest } from "../../shared/schemas/agent.js";

export const handler = route({ body: AgentsCompletionRequest }, ({ body, caller, requestId, signal, route }) =>
  agentCompletions.complete({ caller, requestId, signal, route }, body),
);
