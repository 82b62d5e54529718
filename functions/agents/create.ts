import * as agents from "../../shared/services/agents/agents.js";
import { route } from "../route.js";
import { AgentOut, CreateAgentRequest } from "../../shared/schemas/agent.js";

export const handler = route({ body: CreateAgentRequest, response: AgentOut }, ({ body, caller }) => agents.create(caller, body));
