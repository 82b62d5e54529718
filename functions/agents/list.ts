import * as agents from "../../shared/services/agents/agents.js";
import { route } from "../route.js";
import { AgentListOut, AgentListQuery } from "../../shared/schemas/agent.js";

export const handler = route({ query: AgentListQuery, response: AgentListOut }, ({ query, caller }) => agents.list(caller, query));
