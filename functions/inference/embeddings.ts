import { embed } from "../model-replies.js";
import { route } from "../../shared/http/route.js";
import { EmbeddingRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: EmbeddingRequest }, ({ body, caller, requestId, signal }) =>
  embed({ caller, requestId, signal, route: "POST /v1/embeddings" }, body),
);
