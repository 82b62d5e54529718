import * as agents from "../../shared/services/agents/agents.js";
import { route } from "../route.js";
import { AgentAliasOut, AgentAliasQuery, AgentParams } from "../../shared/schemas/agent.js";

export const handler = route({ params: AgentParams, query: AgentAliasQuery, response: AgentAliasOut }, ({ params, query, caller }) =>
  agents.putAlias(caller, params.agent_id, query.alias, query.version),
);
