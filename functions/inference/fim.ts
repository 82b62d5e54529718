import * as completions from "../model-replies.js";
import { route } from "../../shared/http/route.js";
import { FimCompletionRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: FimCompletionRequest, streaming: true }, ({ body, caller, requestId, signal }) =>
  completions.fim({ caller, requestId, signal, route: "POST /v1/fim/completions" }, body),
);
