/**
 * POST /v1/ocr (docs/ocr.md), as Mistral's OpenAPI defines it: `OCRRequest` (closed: unknown fields are refused)
 * with its document as a `file` chunk (a file of the workspace), a `document_url` chunk or an `image_url` chunk
 * (a URL or a `data:` URL), and `OCRResponse` with its pages.
 */
import * as z from "zod";
import { Uuid } from "./common.js";
import { ResponseFormat } from "./inference.js";

/** A URL as the request may carry it: a `data:` URL holds the document itself (the body limit bounds it first). */
const MAX_URL_CHARACTERS = 64 * 1024 * 1024;

export const FileChunk = z.strictObject({
  type: z.literal("file").default("file"),
  file_id: Uuid,
});

export const DocumentUrlChunk = z.strictObject({
  type: z.literal("document_url").default("document_url"),
  document_url: z.string().min(1).max(MAX_URL_CHARACTERS),
  document_name: z.string().max(1024).nullish(),
});

export const ImageUrlChunk = z.strictObject({
  type: z.literal("image_url").default("image_url"),
  image_url: z.union([z.strictObject({ url: z.string().min(1).max(MAX_URL_CHARACTERS), detail: z.enum(["low", "auto", "high"]).nullish() }), z.string().min(1).max(MAX_URL_CHARACTERS)]),
});

export const OcrDocument = z.union([FileChunk, DocumentUrlChunk, ImageUrlChunk]);
export type OcrDocument = z.infer<typeof OcrDocument>;

/** Page numbers from 0: a list, or text of numbers and ranges (`"0,2-4"`); read by shared/domain/ocr.ts. */
export const PageSelection = z.union([z.string().max(10_000), z.array(z.number().int().min(0)).max(10_000)]);

export const OcrRequest = z.strictObject({
  // Required but nullable in the OpenAPI: null picks the catalog's OCR model.
  model: z.string().min(1).max(256).nullable(),
  document: OcrDocument,
  pages: PageSelection.nullish(),
  include_image_base64: z.boolean().nullish(),
  image_limit: z.number().int().min(0).nullish(),
  image_min_size: z.number().int().min(0).nullish(),
  bbox_annotation_format: ResponseFormat.nullish(),
  document_annotation_format: ResponseFormat.nullish(),
  document_annotation_prompt: z.string().nullish(),
  table_format: z.enum(["markdown", "html"]).nullish(),
  extract_header: z.boolean().default(false),
  extract_footer: z.boolean().default(false),
  include_blocks: z.boolean().default(true),
  confidence_scores_granularity: z.enum(["word", "page", "block"]).nullish(),
});
export type OcrRequest = z.infer<typeof OcrRequest>;

export const OcrImage = z.object({
  id: z.string(),
  top_left_x: z.number().int().min(0).nullable(),
  top_left_y: z.number().int().min(0).nullable(),
  bottom_right_x: z.number().int().min(0).nullable(),
  bottom_right_y: z.number().int().min(0).nullable(),
  image_base64: z.string().nullish(),
  image_annotation: z.string().nullish(),
});

export const OcrPageDimensions = z.object({ dpi: z.number().int().min(0), height: z.number().int().min(0), width: z.number().int().min(0) });
export type OcrPageDimensions = z.infer<typeof OcrPageDimensions>;

/**
 * One page of the answer. `tables`, `hyperlinks`, `header`, `footer`, `confidence_scores` and `blocks` are optional
 * in the OpenAPI: an upstream that serves Mistral OCR sends them, and they pass through as they came (loose).
 */
export const OcrPage = z.looseObject({
  index: z.number().int().min(0),
  markdown: z.string(),
  images: z.array(OcrImage),
  dimensions: OcrPageDimensions.nullable(),
});
export type OcrPage = z.infer<typeof OcrPage>;

export const OcrUsageInfo = z.object({ pages_processed: z.number().int().min(0), doc_size_bytes: z.number().int().nullish() });

export const OcrResponse = z.object({
  pages: z.array(OcrPage),
  model: z.string(),
  document_annotation: z.string().nullish(),
  usage_info: OcrUsageInfo,
});
export type OcrResponse = z.infer<typeof OcrResponse>;
