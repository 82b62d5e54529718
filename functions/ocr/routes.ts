import { area } from "../route-row.js";

/**
 * OCR (docs/ocr.md): an extension of our spec, the SDK's `ocr.process`. A model call like the others (the catalog, the
 * spend limit and totals, the usage log); `file` documents read the files table and object; `ocr` lets the function
 * call Amazon Textract, the cloud catalog's OCR provider.
 */
export const ocrRoutes = area({ permissions: { read: "inference:invoke", write: "inference:invoke" } }, [
  {
    method: "POST",
    path: "/v1/ocr",
    handler: "ocr/process",
    grants: { tables: { models: "read", usage: "readwrite", tenancy: "read", files: "read" }, files: "read", ocr: "detect-text" },
    memoryMb: 1024,
    extension: true,
  },
]);
