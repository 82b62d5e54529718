import { embed } from "../model-replies.js";
import { route } from "../route.js";
import { EmbeddingRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: EmbeddingRequest }, ({ body, caller, requestId, signal, route }) =>
  embed({ caller, requestId, signal, route }, body),
);
