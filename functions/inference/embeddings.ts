import { embed } from "../model-replies.js";
import { route } from "../route.js";
import { EmbeddingOut, EmbeddingRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: EmbeddingRequest, returns: EmbeddingOut }, ({ body, caller, requestId, signal, route }) =>
  embed({ caller, requestId, signal, route }, body),
);
