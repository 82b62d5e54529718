import * as conversations from "../../shared/services/conversations/conversations.js";
import { ConversationOut, ConversationParams } from "../../shared/schemas/conversation.js";
import { route } from "../route.js";

export const handler = route({ params: ConversationParams, response: ConversationOut }, ({ params, caller }) => conversations.get(caller, params.conversation_id));
