import * as agents from "../../shared/services/agents/agents.js";
import { route } from "../route.js";
import { AgentListOut, AgentParams, AgentVersionListQuery } from "../../shared/schemas/agent.js";

export const handler = route({ params: AgentParams, query: AgentVersionListQuery, response: AgentListOut }, ({ params, query, caller }) =>
  agents.listVersions(caller, params.agent_id, query.page, query.page_size),
);
