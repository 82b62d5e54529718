import * as conversations from "../../shared/services/conversations/conversations.js";
import { ConversationMessagesOut, ConversationParams } from "../../shared/schemas/conversation.js";
import { route } from "../route.js";

export const handler = route({ params: ConversationParams, response: ConversationMessagesOut }, ({ params, caller }) => conversations.messages(caller, params.conversation_id));
