import * as agents from "../../shared/services/agents/agents.js";
import { route } from "../route.js";
import { AgentAliasListOut, AgentParams } from "../../shared/schemas/agent.js";

export const handler = route({ params: AgentParams, response: AgentAliasListOut }, ({ params, caller }) => agents.listAliases(caller, params.agent_id));
