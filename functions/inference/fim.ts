import * as completions from "../model-replies.js";
import { route } from "../route.js";
import { CompletionOut, FimCompletionRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: FimCompletionRequest, returns: CompletionOut }, ({ body, caller, requestId, signal, route }) =>
  completions.fim({ caller, requestId, signal, route }, body),
);
