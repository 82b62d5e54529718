import * as conversations from "../../shared/services/conversations/conversations.js";
import { ConversationListOut, ConversationListQuery } from "../../shared/schemas/conversation.js";
import { route } from "../route.js";

export const handler = route({ query: ConversationListQuery, response: ConversationListOut }, ({ query, caller }) => conversations.list(caller, query));
