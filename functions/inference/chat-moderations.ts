import { moderateChat } from "../model-replies.js";
import { route } from "../route.js";
import { ChatModerationRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: ChatModerationRequest }, ({ body, caller, requestId, signal, route }) => moderateChat({ caller, requestId, signal, route }, body));
