import * as conversations from "../../shared/services/conversations/conversations.js";
import { ConversationHistoryOut, ConversationParams } from "../../shared/schemas/conversation.js";
import { route } from "../route.js";

export const handler = route({ params: ConversationParams, response: ConversationHistoryOut }, ({ params, caller }) => conversations.history(caller, params.conversation_id));
