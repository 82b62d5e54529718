import * as completions from "../model-replies.js";
import { route } from "../route.js";
import { ChatCompletionRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: ChatCompletionRequest }, ({ body, caller, requestId, signal, route }) =>
  completions.chat({ caller, requestId, signal, route }, body),
);
