import * as agents from "../../shared/services/agents/agents.js";
import { route } from "../route.js";
import { AgentOut, AgentParams, AgentVersionQuery } from "../../shared/schemas/agent.js";

export const handler = route({ params: AgentParams, query: AgentVersionQuery, response: AgentOut }, ({ params, query, caller }) =>
  agents.switchVersion(caller, params.agent_id, query.version),
);
