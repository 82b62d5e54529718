import * as agents from "../../shared/services/agents/agents.js";
import { route } from "../route.js";
import { AgentGetQuery, AgentOut, AgentParams } from "../../shared/schemas/agent.js";

export const handler = route({ params: AgentParams, query: AgentGetQuery, response: AgentOut }, ({ params, query, caller }) =>
  agents.get(caller, params.agent_id, query.agent_version),
);
