import * as agents from "../../shared/services/agents/agents.js";
import { route } from "../route.js";
import { AgentPageOut, AgentPagesQuery } from "../../shared/schemas/agent.js";

export const handler = route({ query: AgentPagesQuery, response: AgentPageOut }, ({ query, caller }) => agents.listPage(caller, query));
