import * as completions from "../model-replies.js";
import { route } from "../../shared/http/route.js";
import { ChatCompletionRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: ChatCompletionRequest, streaming: true }, ({ body, caller, requestId, signal }) =>
  completions.chat({ caller, requestId, signal, route: "POST /v1/chat/completions" }, body),
);
