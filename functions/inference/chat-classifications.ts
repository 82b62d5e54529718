import { classifyChat } from "../model-replies.js";
import { route } from "../route.js";
import { ChatClassificationRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: ChatClassificationRequest }, ({ body, caller, requestId, signal, route }) => classifyChat({ caller, requestId, signal, route }, body));
