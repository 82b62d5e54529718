/**
 * OCR through an upstream that serves Mistral's `POST /v1/ocr` (Mistral's API, a compatible server): the request
 * in Mistral's shape with the document inlined as a `data:` URL, and its answer read back, checked only for what
 * the route needs (its pages' index, markdown, images, dimensions); everything else on a page passes through.
 */
import { OcrPage } from "../../../schemas/ocr.js";
import type { OcrCall, OcrResult } from "../../types.js";
import { malformed } from "./errors.js";
import { isRecord, withoutNulls, type Json } from "./json.js";

export function ocrBody(request: OcrCall): Json {
  const url = `data:${request.mediaType};base64,${Buffer.from(request.document).toString("base64")}`;
  const document =
    request.kind === "pdf"
      ? withoutNulls({ type: "document_url", document_url: url, document_name: request.documentName })
      : { type: "image_url", image_url: url };
  return { ...withoutNulls({ ...request.options }), model: request.model, document, ...(request.pages ? { pages: request.pages } : {}) };
}

export function ocrResultOf(answer: unknown): OcrResult {
  if (!isRecord(answer) || !Array.isArray(answer.pages)) throw malformed("an OCR answer with pages was expected");
  const pages = answer.pages.map((page) => {
    const parsed = OcrPage.safeParse(page);
    if (!parsed.success) throw malformed("an OCR page lacks its index, markdown, images or dimensions");
    return parsed.data;
  });
  const usage = isRecord(answer.usage_info) ? answer.usage_info.pages_processed : undefined;
  return {
    pages,
    documentAnnotation: typeof answer.document_annotation === "string" ? answer.document_annotation : null,
    ...(typeof usage === "number" && Number.isInteger(usage) && usage >= 0 ? { pagesProcessed: usage } : {}),
  };
}
