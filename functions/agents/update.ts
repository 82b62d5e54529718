import * as agents from "../../shared/services/agents/agents.js";
import { route } from "../route.js";
import { AgentOut, AgentParams, UpdateAgentRequest } from "../../shared/schemas/agent.js";

export const handler = route({ params: AgentParams, body: UpdateAgentRequest, response: AgentOut }, ({ params, body, caller }) =>
  agents.update(caller, params.agent_id, body),
);
