import * as files from "../../shared/services/files/files.js";
import { toFileOut } from "../../shared/domain/file-rules.js";
import { multipartForm } from "../../shared/http/multipart.js";
import { route } from "../route.js";
import { FileOut, UploadForm } from "../../shared/schemas/file.js";

export const handler = route({ body: UploadForm, parser: multipartForm, response: FileOut }, async ({ body, caller }) =>
  toFileOut(await files.uploadInline(caller, body)),
);
