import { classify } from "../model-replies.js";
import { route } from "../route.js";
import { ClassificationRequest } from "../../shared/schemas/inference.js";

export const handler = route({ body: ClassificationRequest }, ({ body, caller, requestId, signal, route }) => classify({ caller, requestId, signal, route }, body));
