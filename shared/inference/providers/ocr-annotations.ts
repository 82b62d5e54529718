import { UnsupportedByProvider, type OcrCall } from "../types.js";

/**
 * Annotations (a JSON schema filled from the page, or from each image) need a model that reads the page, as Mistral
 * OCR does; a provider without one (the offline engines, Amazon Textract) refuses them with a 400 naming the fields,
 * rather than answering without them.
 */
export function refuseAnnotations(backend: string, request: OcrCall): void {
  const asked = (["bbox_annotation_format", "document_annotation_format", "document_annotation_prompt"] as const).filter((field) => request.options[field]);
  if (asked.length) throw new UnsupportedByProvider(backend, `OCR annotations (${asked.join(", ")}); configure an upstream that serves Mistral OCR (docs/ocr.md)`);
}
