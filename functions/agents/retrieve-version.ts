import * as agents from "../../shared/services/agents/agents.js";
import { route } from "../route.js";
import { AgentOut, AgentVersionParams } from "../../shared/schemas/agent.js";

export const handler = route({ params: AgentVersionParams, response: AgentOut }, ({ params, caller }) =>
  agents.getVersion(caller, params.agent_id, params.version),
);
