import { OcrRequest, OcrResponse } from "../../shared/schemas/ocr.js";
import { processDocument } from "../../shared/services/ocr/ocr.js";
import { toReply } from "../model-replies.js";
import { route } from "../route.js";

export const handler = route(
  { body: OcrRequest, returns: OcrResponse },
  async ({ body, caller, requestId, signal, route }) => toReply(await processDocument({ caller, requestId, signal, route }, body)),
);
